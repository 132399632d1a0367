/*
 * crush_mappings.c: a random placement hierarchy and the library's up sets
 * on it, for test/unit/crush_ref.sh to compare with test/crush_ref.py.
 *
 *	test/crush_mappings SEED MAPFILE [NPG]
 *
 * builds, from SEED, a 3-level hierarchy (default, racks, hosts, OSDs)
 * with unequal weights, device classes, an empty host, a host whose OSDs
 * are all down, OSDs down, out and partly in, and four rules (hosts,
 * racks, one class, OSDs of one rack); writes to MAPFILE the JSON a client
 * would hold: {"crush": `osd crush dump`, "osds": the OSDs' "osd", "up",
 * "in" and "weight" as `osd dump` has them, "queries": [{"rule", "pool",
 * "seed", "size"}...]}; and prints one line per query (NPG per rule,
 * default 1500):
 *
 *	RULE POOL.SEEDHEX SIZE -> [a,b,c]
 *
 * Exits 1 with a message when the map cannot be built.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/mapmon.h"
#include "map/crush.h"

static uint64_t crush_mappings_state;

/* xorshift64*: a reproducible stream from the seed. */
static uint32_t
rnd(uint32_t n)
{
	uint64_t x = crush_mappings_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	crush_mappings_state = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dULL) >> 32) % n;
}

static void
must(int rc, char *cause)
{
	if (rc != 0) {
		fprintf(stderr, "crush_mappings: %s\n", cause);
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	static const char *classes[] = { "hdd", "ssd", "nvme" };
	struct crush_osd_state st[256];
	struct crush *c;
	json_t *doc, *osds, *queries;
	char *cause = NULL, host[32], rack[32];
	const char *loc[2] = { host, rack };
	int32_t up[CRUSH_MAX_SIZE];
	uint32_t rules[4], npg = 1500, q, nosd = 0;
	int r, h, i, nracks, nhosts, n, k;
	unsigned long seed;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: crush_mappings SEED MAPFILE [NPG]\n");
		return 2;
	}
	seed = strtoul(argv[1], NULL, 10);
	crush_mappings_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (argc == 4)
		npg = (uint32_t)strtoul(argv[3], NULL, 10);
	c = crush_new_default();
	nracks = 3 + (int)rnd(2);
	for (r = 0; r < nracks; r++) {
		snprintf(rack, sizeof rack, "rack=r%d", r);
		nhosts = 2 + (int)rnd(3);
		for (h = 0; h < nhosts; h++) {
			snprintf(host, sizeof host, "host=r%dh%d", r, h);
			n = 1 + (int)rnd(5);
			for (i = 0; i < n && nosd < 256; i++, nosd++) {
				/* Weights from 0.25 to 4 in steps of 0.0625. */
				must(crush_osd_add(c, (int32_t)nosd,
					 (4 + rnd(61)) / 16.0, loc, 2, &cause),
				    cause);
				if (rnd(5) != 0)
					must(crush_osd_set_class(c,
						 (int32_t)nosd, classes[rnd(3)],
						 &cause),
					    cause);
			}
		}
	}
	/* An empty host, and a host whose OSDs will all be down. */
	must(crush_bucket_add(c, "empty", "host", (const char *[]){ "rack=r0" },
		 1, NULL, &cause),
	    cause);
	snprintf(host, sizeof host, "host=dark");
	snprintf(rack, sizeof rack, "rack=r1");
	for (i = 0; i < 2; i++, nosd++)
		must(crush_osd_add(c, (int32_t)nosd, 1.0, loc, 2, &cause),
		    cause);
	rules[0] = 0;
	must(crush_rule_create(c, "by_rack", "default", "rack", NULL, &rules[1],
		 &cause),
	    cause);
	must(crush_rule_create(c, "fast", "default", "host", "ssd", &rules[2],
		 &cause),
	    cause);
	must(
	    crush_rule_create(c, "in_r0", "r0", "osd", NULL, &rules[3], &cause),
	    cause);

	osds = json_array();
	for (q = 0; q < nosd; q++) {
		k = (int)rnd(20);
		st[q].up = k != 0 && q < nosd - 2;
		st[q].reweight = k == 1 ? 0 :
		    k <= 4		? 1 + rnd(CRUSH_WEIGHT_ONE - 1) :
					  CRUSH_WEIGHT_ONE;
		/* An out OSD: in 0, as the osdmap has it (reweight kept). */
		json_array_append_new(osds,
		    json_pack("{s:i, s:i, s:i, s:f}", "osd", (int)q, "up",
			st[q].up, "in", st[q].reweight != 0, "weight",
			st[q].reweight == 0 ?
			    1.0 :
			    (double)st[q].reweight / CRUSH_WEIGHT_ONE));
	}
	queries = json_array();
	for (k = 0; k < 4; k++)
		for (q = 0; q < npg; q++) {
			uint32_t pool = q % 7 == 0 ? rnd(4) * 0x55555555u :
						     1 + rnd(20);
			uint32_t pgs = q % 11 == 0 ? 0xffffffffu - rnd(3) :
						     rnd(4096);
			unsigned size = 1 + rnd(5);
			int len;

			json_array_append_new(queries,
			    json_pack("{s:i, s:I, s:I, s:i}", "rule",
				(int)rules[k], "pool", (json_int_t)pool, "seed",
				(json_int_t)pgs, "size", (int)size));
			len = crush_map_pg(c, rules[k], st, nosd, pool, pgs,
			    size, up);
			printf("%u %u.%x %u -> [", rules[k], pool, pgs, size);
			for (i = 0; i < len; i++)
				printf("%s%d", i ? "," : "", up[i]);
			printf("]\n");
		}
	doc = json_pack("{s:o, s:o, s:o}", "crush", crush_to_json(c), "osds",
	    osds, "queries", queries);
	if (json_dump_file(doc, argv[2], JSON_INDENT(1)) != 0) {
		fprintf(stderr, "crush_mappings: cannot write %s\n", argv[2]);
		return 1;
	}
	json_decref(doc);
	crush_free(c);
	return 0;
}
