// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Per-process memory maps rebuilt from perf script's PERF_RECORD_MMAP and
 * MMAP2 lines, to turn a runtime address into (file, file offset).  A new
 * mapping replaces what it overlaps (re-mmap); exec empties a process; fork
 * copies its parent.  Memory grows with distinct mappings only.  A sample
 * without a pid is looked up in every process, first match wins.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "../../lib/arrays.h"

struct map {
	uint64_t start, end, pgoff;
	char *file;
};

struct proc {
	int pid;
	struct map *v;
	size_t n, cap;
};

struct dt_maps {
	struct proc *procs;
	size_t n, cap;
	size_t last;		/* index of the last process looked up */
};

int dt_maps_new(struct dt_maps **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void proc_clear(struct proc *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].file);
	p->n = 0;
}

void dt_maps_free(struct dt_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		proc_clear(&m->procs[i]);
		free(m->procs[i].v);
	}
	free(m->procs);
	free(m);
}

static struct proc *proc_get(struct dt_maps *m, int pid, bool create)
{
	if (m->last < m->n && m->procs[m->last].pid == pid)
		return &m->procs[m->last];
	for (size_t i = 0; i < m->n; i++)
		if (m->procs[i].pid == pid) {
			m->last = i;
			return &m->procs[i];
		}
	if (!create)
		return NULL;
	if (GROW(m->procs, m->cap, m->n, 16))
		return NULL;
	m->procs[m->n] = (struct proc){ .pid = pid };
	m->last = m->n;
	return &m->procs[m->n++];
}

static int insert(struct proc *p, size_t at, struct map mp)
{
	if (GROW(p->v, p->cap, p->n, 16))
		return -ENOMEM;
	memmove(&p->v[at + 1], &p->v[at], (p->n - at) * sizeof(*p->v));
	p->v[at] = mp;
	p->n++;
	return 0;
}

int dt_maps_add(struct dt_maps *m, int pid, uint64_t start, uint64_t len,
		uint64_t pgoff, const char *file, size_t file_len)
{
	struct proc *p = proc_get(m, pid, true);
	uint64_t end = start + len;

	if (!p)
		return -ENOMEM;
	if (!len || end < start)
		return -EINVAL;
	/* cut what the new mapping overlaps */
	for (size_t i = 0; i < p->n;) {
		struct map *o = &p->v[i];
		if (o->end <= start || o->start >= end) {
			i++;
			continue;
		}
		if (o->start < start && o->end > end) {
			/* the new one punches a hole: keep both sides */
			struct map right = { end, o->end, o->pgoff + (end - o->start),
					     strdup(o->file) };
			if (!right.file || insert(p, i + 1, right)) {
				free(right.file);
				return -ENOMEM;
			}
			o = &p->v[i];
			o->end = start;
			i += 2;
		} else if (o->start < start) {
			o->end = start;
			i++;
		} else if (o->end > end) {
			o->pgoff += end - o->start;
			o->start = end;
			i++;
		} else {
			free(o->file);
			memmove(o, o + 1, (p->n - i - 1) * sizeof(*o));
			p->n--;
		}
	}
	size_t at = 0;
	while (at < p->n && p->v[at].start < start)
		at++;
	struct map mp = { start, end, pgoff, strndup(file, file_len) };
	if (!mp.file || insert(p, at, mp)) {
		free(mp.file);
		return -ENOMEM;
	}
	return 0;
}

void dt_maps_exec(struct dt_maps *m, int pid)
{
	struct proc *p = proc_get(m, pid, false);

	if (p)
		proc_clear(p);
}

int dt_maps_fork(struct dt_maps *m, int child, int parent)
{
	if (child == parent)
		return 0;	/* a new thread shares its process's maps */
	struct proc *pp = proc_get(m, parent, false);
	size_t pi = pp ? (size_t)(pp - m->procs) : 0;
	struct proc *c = proc_get(m, child, true);

	if (!c)
		return -ENOMEM;
	proc_clear(c);
	if (!pp)
		return 0;
	pp = &m->procs[pi];		/* proc_get may have moved it */
	for (size_t i = 0; i < pp->n; i++) {
		struct map mp = pp->v[i];
		mp.file = strdup(mp.file);
		if (!mp.file || insert(c, c->n, mp)) {
			free(mp.file);
			return -ENOMEM;
		}
		pp = &m->procs[pi];
	}
	return 0;
}

static const char *lookup(struct proc *p, uint64_t addr, uint64_t *off)
{
	size_t lo = AT_OR_BELOW(p->n, i, p->v[i].start, addr);

	if (lo == 0 || addr >= p->v[lo - 1].end)
		return NULL;
	*off = addr - p->v[lo - 1].start + p->v[lo - 1].pgoff;
	return p->v[lo - 1].file;
}

const char *dt_maps_find(struct dt_maps *m, int pid, uint64_t addr,
			 uint64_t *file_offset)
{
	struct proc *p = pid >= 0 ? proc_get(m, pid, false) : NULL;
	const char *f = p ? lookup(p, addr, file_offset) : NULL;

	/* the kernel's maps are recorded for pid -1 */
	if (!f && (p = proc_get(m, -1, false)))
		f = lookup(p, addr, file_offset);
	/* a line without a pid (-F ip): the first process mapping addr */
	for (size_t i = 0; !f && pid < 0 && i < m->n; i++)
		f = lookup(&m->procs[i], addr, file_offset);
	return f;
}
