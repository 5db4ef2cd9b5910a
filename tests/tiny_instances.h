/*
 * Tiny instances shared by the exact-solver tests: small enough for the
 * brute force of brute.h (products of per-device orders <= ~10^4), and
 * varied on purpose: split and fused, memory limits, comm, per-stage
 * costs, interleaved and V placements, a DAG, the span objective, W = 0.
 */
#ifndef PIPEOPT_TEST_TINY_INSTANCES_H
#define PIPEOPT_TEST_TINY_INSTANCES_H

struct tiny {
	const char *name;
	const char *json;
};

static const struct tiny tiny_instances[] = {
	{"chain2 split comm",
	 "{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":3,\"W\":1},\"comm\":1}"},
	{"chain2 split mem",
	 "{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":2,\"W\":1},"
	 "\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":3}}"},
	{"chain3 fused uneven",
	 "{\"devices\":3,\"microbatches\":2,\"cost\":{\"F\":[3,1,2],\"B\":[2,4,1]},\"comm\":1}"},
	{"chain3 split mem comm",
	 "{\"devices\":3,\"microbatches\":2,\"cost\":{\"F\":1,\"B\":2,\"W\":1},\"comm\":2,"
	 "\"memory\":{\"F\":2,\"B\":-1,\"W\":-1,\"limit\":4}}"},
	{"chain2 fused m3 mem",
	 "{\"devices\":2,\"microbatches\":3,\"cost\":{\"F\":1,\"B\":1},"
	 "\"memory\":{\"F\":1,\"B\":-1,\"limit\":1}}"},
	{"interleaved 2x2 fused",
	 "{\"devices\":2,\"microbatches\":2,\"chunks\":2,\"placement\":\"interleaved\","
	 "\"cost\":{\"F\":[1,2,1,2],\"B\":[2,2,1,3]},\"comm\":1}"},
	{"v 2x2 fused",
	 "{\"devices\":2,\"microbatches\":2,\"chunks\":2,\"placement\":\"v\","
	 "\"cost\":{\"F\":1,\"B\":2},\"comm\":1}"},
	{"diamond dag",
	 "{\"devices\":3,\"microbatches\":2,\"placement\":[0,1,2,0],"
	 "\"edges\":[[0,1],[0,2],[1,3],[2,3]],\"cost\":{\"F\":[1,2,3,1],\"B\":[1,2,2,1]},\"comm\":1}"},
	{"chain2 m3 fused comm",
	 "{\"devices\":2,\"microbatches\":3,\"cost\":{\"F\":[1,3],\"B\":[2,1]},\"comm\":2}"},
	{"chain2 split span",
	 "{\"devices\":2,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":2,\"W\":1},\"comm\":1,"
	 "\"objective\":\"span\"}"},
	{"chain3 fused span",
	 "{\"devices\":3,\"microbatches\":2,\"cost\":{\"F\":[3,1,2],\"B\":[2,4,1]},\"comm\":1,"
	 "\"objective\":\"span\"}"},
	{"chain3 split W=0",
	 "{\"devices\":3,\"microbatches\":2,\"cost\":{\"F\":2,\"B\":1,\"W\":0},\"comm\":0}"},
};
#define NTINY (int)(sizeof tiny_instances / sizeof tiny_instances[0])

#endif
