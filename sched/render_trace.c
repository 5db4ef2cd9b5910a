/* Chrome trace event format: one complete ("X") event per op, one thread
 * per device (and per copy channel, with offload: thread D + d), named by
 * metadata ("M") events. */
#include <jansson.h>
#include <stdio.h>

#include "sched/render.h"

char *render_trace(const struct instance *in, const struct schedule *s,
		   const struct sim_result *r)
{
	json_t *events = json_array();
	for (int d = 0; d < s->devices; d++) {
		char name[32];
		snprintf(name, sizeof name, "device %d", d);
		json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}",
			"name", "thread_name", "ph", "M", "pid", 0, "tid", d,
			"args", "name", name));
		if (in->has_offload) {   /* the copy channel: thread D + d */
			snprintf(name, sizeof name, "device %d copy", d);
			json_array_append_new(events, json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}",
				"name", "thread_name", "ph", "M", "pid", 0, "tid", s->devices + d,
				"args", "name", name));
		}
		for (int i = 0; i < s->rows[d].len; i++) {
			const struct op *o = &s->rows[d].ops[i];
			int64_t st, en;
			sim_op_times(in, r, o, &st, &en);
			int tid = op_on_channel(o->kind) ? s->devices + d : d;
			char label[48];
			snprintf(label, sizeof label, "%s%d.%d",
				 op_kind_name(o->kind), o->stage, o->mb);
			json_array_append_new(events, json_pack(
				"{s:s,s:s,s:s,s:I,s:I,s:i,s:i,s:{s:s,s:i,s:i}}",
				"name", label, "cat", op_kind_name(o->kind),
				"ph", "X", "ts", (json_int_t)st,
				"dur", (json_int_t)(en - st),
				"pid", 0, "tid", tid, "args", "kind",
				op_kind_name(o->kind), "stage", o->stage,
				"microbatch", o->mb));
			if (o->recompute) {   /* the B's first R time units rebuild */
				json_t *ev = json_array_get(events, json_array_size(events) - 1);
				json_object_set_new(json_object_get(ev, "args"), "recompute",
						    json_integer(in->has_recompute ?
								 in->recompute_cost[o->stage] : 0));
			}
		}
	}
	json_t *doc = json_pack("{s:o,s:s,s:{s:s,s:I,s:I}}", "traceEvents", events,
				"displayTimeUnit", "ms", "otherData",
				"instance", in->name, "makespan",
				(json_int_t)r->makespan, "span",
				(json_int_t)r->span);
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	json_decref(doc);
	return text;
}
