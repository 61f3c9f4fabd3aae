// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A binary's sample answers kept across runs.  Naming an instruction is
 * the costly part of a profile (decoding its function, the dataflow,
 * the walks of every unit for the indexes: about 3.8 us an instruction
 * on perf, seconds on a kernel), and every run of the same binary names
 * the same instructions again: a report, then annotate, then sharing.
 * dt_resolve_sample()'s answers are kept in the host's cache directory
 * (dt_session_opts.cache_dir: the library writes nowhere else), beside
 * the inflated debug files, as CACHE/.build-id/xx/rest.answers-ENGINE,
 * and read back by the next session of that binary.
 *
 * An answer depends on the binary, the debug info found for it and the
 * engine: the file is keyed by the build-id (its name; a debug file is
 * found by the same build-id, a dwz supplementary file by its own, so
 * each is that content wherever it lies: the inflated copy in the cache
 * too), this engine's sources (DT_ENGINE_ID, a hash the build makes of
 * lib/ and arch/), the session's flags that change answers, and which
 * debug info was found (none, in the binary, a debug file, with its
 * supplementary file, split units).  The engine's id is in the file's
 * name too: each build keeps its own.  Any difference, and the file is
 * not used (a new one replaces it at the session's end).  The file is anyone's to
 * have written: every count, offset and string is checked before use,
 * and a file that fails any check is not used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../arrays.h"
#include "internal.h"
#include "engine-id.h"

#define MAGIC "DTPRANS1"
#define MAX_ENTRIES (1u << 24)
#define MAX_STRINGS (256u << 20)

struct stored {
	uint64_t pc;
	unsigned flags;			/* DT_RESOLVE_SKID or 0 */
	struct dt_answer ans;
};

struct answer_store {
	struct stored *v;
	size_t n, cap;
	uint32_t *slot;
	size_t size;
	size_t loaded;			/* of them, read from the file */
	bool read;			/* the file was read (maybe empty: a
					 * binary no sample named) */
	uint64_t key;			/* what the file must say */
	bool usable;			/* a build-id and a cache to keep it in */
};

/* On disk, little or big endian as this host (a file another host wrote
 * has another key: the engine id holds the byte order). */
struct file_header {
	char magic[8];
	char engine[32];
	uint64_t key;
	uint32_t n, strings;
};
struct file_entry {
	uint64_t pc, access_pc, type_size, type_id;
	int64_t offset, disp;
	int32_t reg;
	uint32_t size, flags;
	uint8_t reason, access, pad[2];
	uint32_t type, field, var, note;	/* offsets into the strings */
};

static uint64_t entry_hash(uint64_t pc, unsigned flags)
{
	return hash_mix(hash_mix(HASH_SEED, pc), flags);
}

static const char *engine_id(void)
{
	static char id[32];

	if (!id[0])
		snprintf(id, sizeof(id), "%s-%zu-%d", DT_ENGINE_ID, sizeof(void *),
			 (int)(*(const unsigned char *)&(uint16_t){ 1 }));
	return id;
}

/* The file's name after the build-id: each engine its own, so that two
 * builds of dtprof sharing a cache (an upgrade beside the old one, a
 * benchmark of two) keep their answers instead of replacing each
 * other's on every run. */
static const char *answers_suffix(void)
{
	return ".answers-" DT_ENGINE_ID;
}

static int add(struct answer_store *st, uint64_t pc, unsigned flags,
	       const struct dt_answer *ans)
{
	uint64_t h = entry_hash(pc, flags);

	if (INDEX_READY(st->slot, st->size, st->n, i, entry_hash(st->v[i].pc, st->v[i].flags)) ||
	    GROW(st->v, st->cap, st->n, 256))
		return -ENOMEM;
	st->slot[INDEX_FREE(st->slot, st->size, h)] = (uint32_t)st->n + 1;
	st->v[st->n++] = (struct stored){ pc, flags, *ans };
	return 0;
}

const struct dt_answer *answer_store_find(const struct answer_store *st, uint64_t pc,
					  unsigned flags)
{
	if (!st || !st->n)
		return NULL;
	uint32_t k = INDEX_FIND(st->slot, st->size, entry_hash(pc, flags), i,
				st->v[i].pc == pc && st->v[i].flags == flags);
	return k ? &st->v[k - 1].ans : NULL;
}

void answer_store_put(struct answer_store *st, uint64_t pc, unsigned flags,
		      const struct dt_answer *ans)
{
	if (st && st->usable && ans->reason != DT_NO_MEMORY && st->n < MAX_ENTRIES &&
	    !answer_store_find(st, pc, flags))
		add(st, pc, flags, ans);	/* out of memory: not kept */
}

/* String at off of the table t (len bytes), NULL unless it ends inside. */
static const char *string_at(const char *t, uint32_t len, uint32_t off)
{
	return off < len && memchr(t + off, '\0', len - off) ? t + off : NULL;
}

/* The file's entries into st, all or none. */
static bool load(struct dt_session *s, struct answer_store *st, int fd)
{
	struct file_header hd;
	struct stat sb;

	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    pread(fd, &hd, sizeof(hd), 0) != (ssize_t)sizeof(hd) ||
	    memcmp(hd.magic, MAGIC, 8) || strncmp(hd.engine, engine_id(), sizeof(hd.engine)) ||
	    hd.key != st->key || hd.n > MAX_ENTRIES || hd.strings > MAX_STRINGS ||
	    (uint64_t)sb.st_size != sizeof(hd) + (uint64_t)hd.n * sizeof(struct file_entry) +
				    hd.strings)
		return false;
	size_t len = (size_t)sb.st_size - sizeof(hd);
	char *buf = malloc(len ? len : 1);
	if (!buf)
		return false;
	bool ok = pread(fd, buf, len, sizeof(hd)) == (ssize_t)len;
	const struct file_entry *e = (const struct file_entry *)(void *)buf;
	const char *strings = buf + (size_t)hd.n * sizeof(*e);
	for (uint32_t i = 0; ok && i < hd.n; i++) {
		const char *type = string_at(strings, hd.strings, e[i].type);
		const char *field = string_at(strings, hd.strings, e[i].field);
		const char *var = string_at(strings, hd.strings, e[i].var);
		const char *note = string_at(strings, hd.strings, e[i].note);
		ok = type && field && var && note && e[i].reason < DT_REASON_COUNT &&
		     e[i].reason != DT_NO_MEMORY && e[i].access <= DT_ACCESS_RMW &&
		     (e[i].flags & ~(unsigned)DT_RESOLVE_SKID) == 0;
		if (!ok)
			break;
		struct dt_answer a = {
			.pc = e[i].pc, .access_pc = e[i].access_pc,
			.reason = (enum dt_reason)e[i].reason, .offset = e[i].offset,
			.reg = e[i].reg, .disp = e[i].disp, .size = e[i].size,
			.access = (enum dt_access)e[i].access, .type_size = e[i].type_size,
			.type_id = e[i].type_id,
			.type = session_intern(s, type), .field = session_intern(s, field),
			.var = session_intern(s, var), .note = session_intern(s, note),
		};
		ok = a.type && a.field && a.var && a.note && !answer_store_find(st, a.pc, e[i].flags) &&
		     !add(st, a.pc, e[i].flags, &a);
	}
	free(buf);
	if (!ok) {		/* none of it */
		st->n = 0;
		if (st->slot)
			memset(st->slot, 0, st->size * sizeof(*st->slot));
		return false;
	}
	st->loaded = st->n;
	st->read = true;
	return true;
}

struct answer_store *answer_store_open(struct dt_session *s, const char *cache,
				       unsigned shape)
{
	const uint8_t *id;
	size_t idlen = dt_session_build_id(s, &id);
	struct answer_store *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->usable = cache && idlen > 1;
	if (!st->usable)
		return st;
	st->key = hash_mix(hash_bytes((const char *)id, idlen, HASH_SEED), shape);
	int fd = debugcache_open_named(cache, id, (int)idlen, answers_suffix());
	if (fd >= 0) {
		if (load(s, st, fd))
			session_debug(s, "%zu answers read from the cache", st->loaded);
		else
			session_debug(s, "the cache's answers are another build's, or damaged: "
				      "not used");
		close(fd);
	}
	return st;
}

bool answer_store_kept(const char *cache, const uint8_t *id, size_t idlen)
{
	struct file_header hd;
	struct stat sb;
	bool kept;

	if (!cache || idlen < 2 || idlen > 64)
		return false;
	int fd = debugcache_open_named(cache, id, (int)idlen, answers_suffix());
	if (fd < 0)
		return false;
	kept = !fstat(fd, &sb) && S_ISREG(sb.st_mode) &&
	       pread(fd, &hd, sizeof(hd), 0) == (ssize_t)sizeof(hd) &&
	       !memcmp(hd.magic, MAGIC, 8) &&
	       !strncmp(hd.engine, engine_id(), sizeof(hd.engine));
	close(fd);
	return kept;
}

bool answer_store_loaded(const struct answer_store *st)
{
	return st && st->read;
}

/* The answers into one buffer, as the file holds them. */
static char *serialize(const struct answer_store *st, size_t *len)
{
	size_t strings = 0;

	for (size_t i = 0; i < st->n; i++) {
		const struct dt_answer *a = &st->v[i].ans;
		strings += strlen(a->type) + strlen(a->field) + strlen(a->var) +
			   strlen(a->note) + 4;
	}
	if (strings > MAX_STRINGS)
		return NULL;
	size_t total = sizeof(struct file_header) + st->n * sizeof(struct file_entry) + strings;
	char *buf = calloc(1, total);
	if (!buf)
		return NULL;
	struct file_header *hd = (struct file_header *)(void *)buf;
	struct file_entry *e = (struct file_entry *)(void *)(hd + 1);
	char *str = (char *)(e + st->n), *p = str;
	memcpy(hd->magic, MAGIC, 8);
	snprintf(hd->engine, sizeof(hd->engine), "%s", engine_id());
	hd->key = st->key;
	hd->n = (uint32_t)st->n;
	hd->strings = (uint32_t)strings;
	for (size_t i = 0; i < st->n; i++) {
		const struct dt_answer *a = &st->v[i].ans;
		const char *s4[4] = { a->type, a->field, a->var, a->note };
		uint32_t off[4];
		for (int k = 0; k < 4; k++) {
			size_t n = strlen(s4[k]) + 1;
			off[k] = (uint32_t)(p - str);
			memcpy(p, s4[k], n);
			p += n;
		}
		e[i] = (struct file_entry){
			.pc = st->v[i].pc, .access_pc = a->access_pc,
			.type_size = a->type_size, .type_id = a->type_id,
			.offset = a->offset, .disp = a->disp, .reg = a->reg,
			.size = a->size, .flags = st->v[i].flags,
			.reason = (uint8_t)a->reason, .access = (uint8_t)a->access,
			.type = off[0], .field = off[1], .var = off[2], .note = off[3],
		};
	}
	*len = total;
	return buf;
}

void answer_store_close(struct dt_session *s, struct answer_store *st, const char *cache)
{
	const uint8_t *id;
	size_t idlen, len;

	if (!st)
		return;
	/* new answers since the file was read: the file again, whole; and
	 * an empty one for a binary that answered nothing (opened ahead, no
	 * sample of it), so that the next session builds nothing ahead */
	if (st->usable && (st->n > st->loaded || !st->read) &&
	    (idlen = dt_session_build_id(s, &id)) > 1) {
		char *buf = serialize(st, &len);
		int err = buf ? debugcache_store_bytes(cache, id, (int)idlen, answers_suffix(),
						       buf, len) : -ENOMEM;
		if (err)
			session_debug(s, "answers not kept in the cache: %s", dt_strerror(err));
		free(buf);
	}
	free(st->v);
	free(st->slot);
	free(st);
}
