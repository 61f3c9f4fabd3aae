// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The floor for the plugin benchmark: a dlfilter that drops every sample
 * and does nothing else, so perf script's own cost is all that remains.
 */
#include <perf/perf_dlfilter.h>

struct perf_dlfilter_fns perf_dlfilter_fns;

int filter_event(void *data, const struct perf_dlfilter_sample *sample,
		 void *ctx)
{
	(void)data;
	(void)sample;
	(void)ctx;
	return 1;
}
