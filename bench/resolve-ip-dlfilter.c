// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The floor plus perf's side of the one call every plugin needs: ask
 * resolve_ip for each sample's dso and address, then drop the sample.
 * bench/callgrind.sh subtracts it from the plugin's count.
 */
#include <perf/perf_dlfilter.h>

struct perf_dlfilter_fns perf_dlfilter_fns;
unsigned long long resolve_ip_sink;	/* the answer is used */

int filter_event(void *data, const struct perf_dlfilter_sample *sample,
		 void *ctx)
{
	const struct perf_dlfilter_al *al = perf_dlfilter_fns.resolve_ip(ctx);

	(void)data;
	(void)sample;
	if (al)
		resolve_ip_sink += al->addr;
	return 1;
}
