/*
 * test_osdmap.c: the osdmap's full ratios through its records (the
 * version 2 encoding and the version 1 records of older stores), its
 * incrementals and its JSON.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "map/osdmap.h"

/* A map of epoch 3 with two OSDs and a pool. */
static void
sample(struct osdmap *m)
{
	struct osdmap_osd o;
	struct osdmap_pool p;
	int32_t i;

	osdmap_init(m);
	m->epoch = 3;
	snprintf(m->fsid, sizeof m->fsid, "%s",
	    "00000000-0000-0000-0000-000000000001");
	for (i = 0; i < 2; i++) {
		memset(&o, 0, sizeof o);
		o.id = i;
		o.up = o.in = 1;
		o.weight = o.reweight = OSDMAP_WEIGHT_ONE;
		osdmap_set_osd(m, &o);
	}
	memset(&p, 0, sizeof p);
	p.id = 1;
	snprintf(p.name, sizeof p.name, "rbd");
	p.size = 2;
	p.min_size = 1;
	p.pg_num = 8;
	p.pgp_num = 8;
	osdmap_set_pool(m, &p);
	m->pool_max = 1;
}

/*
 * A record of this version made one of version v, as an older mapmon
 * wrote it: version 4 only appended the hierarchy (a byte, then c's record
 * when there is one) and the pools' rules (a count, then an id and a rule
 * each: 4 + 8 x npools bytes), version 3 the pools' pgp_num (as many),
 * version 2 the three ratios (24 bytes) before them.
 */
static void
as_version(struct enc_buf *b, int v, size_t npools, const struct crush *c)
{
	struct enc_buf cb = { 0 };

	cr_assert_eq(b->data[0], OSDMAP_STRUCT_V);
	cr_assert_eq(OSDMAP_STRUCT_V, 4);
	if (c != NULL)
		crush_encode(c, &cb);
	b->len -= 1 + cb.len + 4 + 8 * npools;
	enc_buf_free(&cb);
	if (v < 3)
		b->len -= 4 + 8 * npools;
	if (v < 2)
		b->len -= 24;
	b->data[0] = (uint8_t)v;
	enc_put_be32(b->data + 2, (uint32_t)(b->len - 6));
}

static void
as_version_1(struct enc_buf *b, size_t npools)
{
	as_version(b, 1, npools, NULL);
}

Test(osdmap, new_maps_have_cephs_default_ratios)
{
	struct osdmap m;

	osdmap_init(&m);
	cr_assert_eq(m.full_ratio, 0.95);
	cr_assert_eq(m.backfillfull_ratio, 0.90);
	cr_assert_eq(m.nearfull_ratio, 0.85);
	cr_assert_eq(m.struct_v, 0);
	osdmap_clear(&m);
}

Test(osdmap, ratios_survive_the_record_exactly)
{
	struct osdmap m, back;
	struct enc_buf b = { 0 };
	char *cause = NULL;

	sample(&m);
	m.full_ratio = 0.97;
	m.backfillfull_ratio = 0.93;
	m.nearfull_ratio = 0.1;
	osdmap_encode(&m, &b);
	cr_assert_eq(b.data[0], 4, "written as version 4");
	osdmap_init(&back);
	cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_eq(back.struct_v, 4);
	cr_assert_eq(back.full_ratio, 0.97);
	cr_assert_eq(back.backfillfull_ratio, 0.93);
	cr_assert_eq(back.nearfull_ratio, 0.1);
	cr_assert_eq(back.max_osd, 2);
	cr_assert_eq(back.npools, 1);
	osdmap_clear(&back);
	osdmap_clear(&m);
	enc_buf_free(&b);
}

Test(osdmap, a_version_1_record_reads_with_the_default_ratios)
{
	struct osdmap m, back;
	struct enc_buf b = { 0 };
	char *cause = NULL;

	sample(&m);
	m.full_ratio = 0.5; /* not in a version 1 record */
	osdmap_encode(&m, &b);
	as_version_1(&b, m.npools);
	osdmap_init(&back);
	cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_eq(back.struct_v, 1);
	cr_assert_eq(back.epoch, 3);
	cr_assert_eq(back.max_osd, 2);
	cr_assert_str_eq(back.pools[0].name, "rbd");
	cr_assert_eq(back.full_ratio, OSDMAP_FULL_RATIO);
	cr_assert_eq(back.backfillfull_ratio, OSDMAP_BACKFILLFULL_RATIO);
	cr_assert_eq(back.nearfull_ratio, OSDMAP_NEARFULL_RATIO);
	osdmap_clear(&back);
	osdmap_clear(&m);
	enc_buf_free(&b);
}

Test(osdmap, a_ratio_out_of_range_is_a_corrupt_record)
{
	struct osdmap m, back;
	struct enc_buf b = { 0 };
	char *cause = NULL;

	sample(&m);
	m.nearfull_ratio = 1.5;
	osdmap_encode(&m, &b);
	osdmap_init(&back);
	cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), -1);
	cr_assert_not_null(strstr(cause, "corrupt"), "%s", cause);
	free(cause);
	cause = NULL;
	enc_buf_reset(&b);
	m.nearfull_ratio = NAN;
	osdmap_encode(&m, &b);
	cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), -1);
	free(cause);
	osdmap_clear(&back);
	osdmap_clear(&m);
	enc_buf_free(&b);
}

Test(osdmap, incrementals_carry_ratio_changes)
{
	struct osdmap m;
	struct osdmap_inc inc, back;
	struct enc_buf b = { 0 };
	char *cause = NULL;

	sample(&m);
	osdmap_inc_init(&inc, 4);
	cr_assert_lt(inc.new_full_ratio, 0, "unchanged by default");
	inc.new_nearfull_ratio = 0.7;
	osdmap_inc_encode(&inc, &b);
	cr_assert_eq(osdmap_inc_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_eq(back.new_nearfull_ratio, 0.7);
	cr_assert_lt(back.new_full_ratio, 0);
	cr_assert_lt(back.new_backfillfull_ratio, 0);
	cr_assert_eq(osdmap_apply(&m, &back, &cause), 0, "%s", cause);
	cr_assert_eq(m.epoch, 4);
	cr_assert_eq(m.nearfull_ratio, 0.7);
	cr_assert_eq(m.full_ratio, OSDMAP_FULL_RATIO);
	osdmap_inc_clear(&back);

	/* An older store's incremental changes no ratio. */
	as_version_1(&b, 0);
	cr_assert_eq(osdmap_inc_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_lt(back.new_nearfull_ratio, 0);
	osdmap_inc_clear(&back);

	/* A ratio past 1 does not apply. */
	osdmap_inc_clear(&inc);
	osdmap_inc_init(&inc, 5);
	inc.new_full_ratio = 1.01;
	cr_assert_eq(osdmap_apply(&m, &inc, &cause), -1);
	cr_assert_not_null(strstr(cause, "full ratio"), "%s", cause);
	free(cause);
	cr_assert_eq(m.epoch, 4, "the map is unchanged");
	osdmap_inc_clear(&inc);
	osdmap_clear(&m);
	enc_buf_free(&b);
}

Test(osdmap, json_has_cephs_ratio_keys)
{
	struct osdmap m, back;
	struct osdmap_inc inc, iback;
	json_t *j;
	char *cause = NULL;

	sample(&m);
	m.backfillfull_ratio = 0.91;
	j = osdmap_to_json(&m);
	cr_assert_eq(json_real_value(json_object_get(j, "full_ratio")), 0.95);
	cr_assert_eq(json_real_value(json_object_get(j, "backfillfull_ratio")),
	    0.91);
	cr_assert_eq(json_real_value(json_object_get(j, "nearfull_ratio")),
	    0.85);
	osdmap_init(&back);
	cr_assert_eq(osdmap_from_json(j, &back, &cause), 0, "%s", cause);
	cr_assert_eq(back.backfillfull_ratio, 0.91);
	/* An older monitor's map has none: the defaults. */
	json_object_del(j, "backfillfull_ratio");
	cr_assert_eq(osdmap_from_json(j, &back, &cause), 0, "%s", cause);
	cr_assert_eq(back.backfillfull_ratio, OSDMAP_BACKFILLFULL_RATIO);
	json_object_set_new(j, "full_ratio", json_real(2.0));
	cr_assert_eq(osdmap_from_json(j, &back, &cause), -1);
	free(cause);
	json_decref(j);

	osdmap_inc_init(&inc, 4);
	j = osdmap_inc_to_json(&inc);
	cr_assert_null(json_object_get(j, "new_full_ratio"),
	    "only a change is written");
	json_decref(j);
	inc.new_full_ratio = 0.99;
	j = osdmap_inc_to_json(&inc);
	cr_assert_eq(json_real_value(json_object_get(j, "new_full_ratio")),
	    0.99);
	cr_assert_eq(osdmap_inc_from_json(j, &iback, &cause), 0, "%s", cause);
	cr_assert_eq(iback.new_full_ratio, 0.99);
	cr_assert_lt(iback.new_nearfull_ratio, 0);
	osdmap_inc_clear(&iback);
	json_decref(j);
	osdmap_inc_clear(&inc);
	osdmap_clear(&back);
	osdmap_clear(&m);
}

Test(osdmap, pgp_num_survives_the_record_and_older_ones_read_as_pg_num)
{
	struct osdmap m, back;
	struct enc_buf b = { 0 };
	char *cause = NULL;

	sample(&m);
	((struct osdmap_pool *)osdmap_pool(&m, 1))->pgp_num = 4;
	osdmap_encode(&m, &b);
	osdmap_init(&back);
	cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_eq(back.pools[0].pg_num, 8);
	cr_assert_eq(back.pools[0].pgp_num, 4);

	/* A version 2 record (the ratios, no pgp_num): pgp_num = pg_num. */
	as_version(&b, 2, m.npools, NULL);
	cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_eq(back.struct_v, 2);
	cr_assert_eq(back.pools[0].pgp_num, 8);
	cr_assert_eq(back.full_ratio, OSDMAP_FULL_RATIO, "ratios still read");
	osdmap_clear(&back);
	osdmap_clear(&m);
	enc_buf_free(&b);
}

Test(osdmap, a_pgp_num_past_pg_num_is_a_corrupt_record)
{
	struct osdmap m, back;
	struct enc_buf b = { 0 };
	char *cause = NULL;
	uint32_t bad[] = { 0, 9 };
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		sample(&m);
		((struct osdmap_pool *)osdmap_pool(&m, 1))->pgp_num = bad[i];
		osdmap_encode(&m, &b);
		osdmap_init(&back);
		cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), -1,
		    "pgp_num %u of pg_num 8 read", bad[i]);
		cr_assert_not_null(strstr(cause, "corrupt"), "%s", cause);
		free(cause);
		cause = NULL;
		osdmap_clear(&back);
		osdmap_clear(&m);
		enc_buf_reset(&b);
	}
	enc_buf_free(&b);
}

Test(osdmap, incrementals_carry_pgp_num)
{
	struct osdmap m;
	struct osdmap_inc inc, back;
	struct osdmap_pool p;
	struct enc_buf b = { 0 };
	char *cause = NULL;

	sample(&m);
	p = *osdmap_pool(&m, 1);
	p.pg_num = 16;
	p.pgp_num = 12;
	osdmap_inc_init(&inc, 4);
	osdmap_inc_set_pool(&inc, &p);
	osdmap_inc_encode(&inc, &b);
	cr_assert_eq(osdmap_inc_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_eq(back.pools[0].pgp_num, 12);
	cr_assert_eq(osdmap_apply(&m, &back, &cause), 0, "%s", cause);
	cr_assert_eq(osdmap_pool(&m, 1)->pgp_num, 12);
	osdmap_inc_clear(&back);

	/* An older incremental's pool takes pgp_num = pg_num. */
	as_version(&b, 2, 1, NULL);
	cr_assert_eq(osdmap_inc_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_eq(back.pools[0].pgp_num, 16);
	osdmap_inc_clear(&back);

	/* A pgp_num past pg_num does not apply. */
	osdmap_inc_clear(&inc);
	osdmap_inc_init(&inc, 5);
	p.pgp_num = 17;
	osdmap_inc_set_pool(&inc, &p);
	cr_assert_eq(osdmap_apply(&m, &inc, &cause), -1);
	cr_assert_not_null(strstr(cause, "pgp_num 17"), "%s", cause);
	free(cause);
	cr_assert_eq(m.epoch, 4, "the map is unchanged");
	osdmap_inc_clear(&inc);
	osdmap_clear(&m);
	enc_buf_free(&b);
}

/*
 * Ceph's flag words and order (OSDMap::get_flag_string(): pauserd,
 * pausewr, noup, nodown, noout, noin; seen on ceph 16.2.15: "flags
 * pauserd,pausewr,noout,..."), and "flags_set" sorted as its std::set.
 */
Test(osdmap, flags_in_cephs_words_and_order)
{
	char buf[64];
	uint32_t all = OSDMAP_FLAG_NOOUT | OSDMAP_FLAG_NOUP | OSDMAP_FLAG_PAUSE;
	json_t *set;

	cr_assert_str_eq(osdmap_flags_format(all, buf, sizeof buf),
	    "pauserd,pausewr,noup,noout");
	cr_assert_str_eq(osdmap_flags_format(0, buf, sizeof buf), "");
	cr_assert_eq(osdmap_flag_parse("pause"), OSDMAP_FLAG_PAUSE);
	cr_assert_eq(osdmap_flag_parse("pauserd"), OSDMAP_FLAG_PAUSE);
	cr_assert_eq(osdmap_flag_parse("pausewr"), OSDMAP_FLAG_PAUSE);
	cr_assert_eq(osdmap_flag_parse("full"), 0);
	set = osdmap_flags_json(all);
	cr_assert_eq(json_array_size(set), 4);
	cr_assert_str_eq(json_string_value(json_array_get(set, 0)), "noout");
	cr_assert_str_eq(json_string_value(json_array_get(set, 1)), "noup");
	cr_assert_str_eq(json_string_value(json_array_get(set, 2)), "pauserd");
	cr_assert_str_eq(json_string_value(json_array_get(set, 3)), "pausewr");
	json_decref(set);
}

/*
 * osd dump's keys as Ceph's OSDMap::dump() writes them (seen on ceph
 * 16.2.15): "flags_set", "max_osd", an OSD's "state" and its "weight",
 * the in/out weight (0 once out); a pool's "pool_id" beside "pool" and
 * "pg_placement_num".  mapmon's reweight stays as "reweight".
 */
Test(osdmap, json_has_cephs_dump_keys)
{
	struct osdmap m, back;
	struct osdmap_osd o;
	json_t *j, *osd0, *osd1, *pool;
	char *cause = NULL;

	sample(&m);
	m.flags = OSDMAP_FLAG_NOOUT;
	o = *osdmap_osd(&m, 1);
	o.in = 0;
	o.up = 0;
	o.up_from = 0;
	o.reweight = OSDMAP_WEIGHT_ONE / 2;
	osdmap_set_osd(&m, &o);
	((struct osdmap_pool *)osdmap_pool(&m, 1))->pgp_num = 4;
	j = osdmap_to_json(&m);
	cr_assert_str_eq(json_string_value(json_array_get(
			     json_object_get(j, "flags_set"), 0)),
	    "noout");
	cr_assert_eq(json_integer_value(json_object_get(j, "max_osd")), 2);
	osd0 = json_array_get(json_object_get(j, "osds"), 0);
	osd1 = json_array_get(json_object_get(j, "osds"), 1);
	cr_assert_eq(json_real_value(json_object_get(osd0, "weight")), 1.0);
	cr_assert_str_eq(json_string_value(
			     json_array_get(json_object_get(osd0, "state"), 1)),
	    "up");
	cr_assert_eq(json_real_value(json_object_get(osd1, "weight")), 0.0,
	    "an out OSD weighs 0");
	cr_assert_eq(json_real_value(json_object_get(osd1, "reweight")), 0.5);
	cr_assert_str_eq(json_string_value(
			     json_array_get(json_object_get(osd1, "state"), 1)),
	    "new", "never booted");
	pool = json_array_get(json_object_get(j, "pools"), 0);
	cr_assert_eq(json_integer_value(json_object_get(pool, "pool_id")), 1);
	cr_assert_eq(json_integer_value(json_object_get(pool, "pool")), 1);
	cr_assert_eq(
	    json_integer_value(json_object_get(pool, "pg_placement_num")), 4);
	cr_assert_eq(json_integer_value(json_object_get(pool, "pgp_num")), 4);

	/* Read back: the reweight survives being out; pgp_num too. */
	osdmap_init(&back);
	cr_assert_eq(osdmap_from_json(j, &back, &cause), 0, "%s", cause);
	cr_assert_eq(osdmap_osd(&back, 1)->reweight, OSDMAP_WEIGHT_ONE / 2);
	cr_assert_eq(osdmap_osd(&back, 1)->in, 0);
	cr_assert_eq(osdmap_pool(&back, 1)->pgp_num, 4);
	cr_assert_eq(back.flags, OSDMAP_FLAG_NOOUT);

	/* An older monitor's: "weight" is the reweight, no pgp_num. */
	json_object_del(osd1, "reweight");
	json_object_set_new(osd1, "weight", json_real(0.25));
	json_object_del(pool, "pgp_num");
	cr_assert_eq(osdmap_from_json(j, &back, &cause), 0, "%s", cause);
	cr_assert_eq(osdmap_osd(&back, 1)->reweight, OSDMAP_WEIGHT_ONE / 4);
	cr_assert_eq(osdmap_pool(&back, 1)->pgp_num, 8);
	json_decref(j);
	osdmap_clear(&back);
	osdmap_clear(&m);
}

/* sample() with a hierarchy: each OSD at its own host, and rule 1 too. */
static void
sample_crush(struct osdmap *m)
{
	struct crush *c = crush_new_default();
	const char *h0[] = { "host=a" }, *h1[] = { "host=b" };
	char *cause = NULL;

	sample(m);
	cr_assert_eq(crush_osd_add(c, 0, 1.0, h0, 1, &cause), 0, "%s", cause);
	cr_assert_eq(crush_osd_add(c, 1, 2.5, h1, 1, &cause), 0, "%s", cause);
	cr_assert_eq(
	    crush_rule_create(c, "r1", "default", "osd", NULL, NULL, &cause), 0,
	    "%s", cause);
	osdmap_set_crush(m, c);
	((struct osdmap_pool *)osdmap_pool(m, 1))->crush_rule = 1;
}

Test(osdmap, the_hierarchy_and_rules_survive_the_record)
{
	struct osdmap m, back;
	struct enc_buf b = { 0 };
	char *cause = NULL;

	sample_crush(&m);
	osdmap_encode(&m, &b);
	osdmap_init(&back);
	cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_not_null(back.crush);
	cr_assert(crush_equal(back.crush, m.crush));
	cr_assert_eq(back.pools[0].crush_rule, 1);

	/* A version 3 record: no hierarchy (placed flat), rule 0. */
	as_version(&b, 3, m.npools, m.crush);
	cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_eq(back.struct_v, 3);
	cr_assert_null(back.crush);
	cr_assert_eq(back.pools[0].crush_rule, 0);
	cr_assert_eq(back.pools[0].pgp_num, 8);
	osdmap_clear(&back);
	osdmap_clear(&m);
	enc_buf_free(&b);
}

Test(osdmap, a_pool_naming_a_missing_rule_is_a_corrupt_record)
{
	struct osdmap m, back;
	struct enc_buf b = { 0 };
	char *cause = NULL;

	sample_crush(&m);
	((struct osdmap_pool *)osdmap_pool(&m, 1))->crush_rule = 7;
	osdmap_encode(&m, &b);
	osdmap_init(&back);
	cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), -1);
	cr_assert_not_null(strstr(cause, "corrupt"), "%s", cause);
	free(cause);
	osdmap_clear(&back);
	osdmap_clear(&m);
	enc_buf_free(&b);
}

Test(osdmap, incrementals_carry_the_hierarchy_whole)
{
	struct osdmap m, copy;
	struct osdmap_inc inc, back;
	struct osdmap_pool p;
	struct enc_buf b = { 0 };
	struct crush *c;
	const char *h2[] = { "host=c" };
	char *cause = NULL;
	json_t *j;

	sample_crush(&m);
	osdmap_init(&copy);
	osdmap_copy(&copy, &m);
	cr_assert_eq(copy.crush, m.crush, "copies share the hierarchy");
	cr_assert(crush_shared(m.crush));

	c = crush_copy(m.crush);
	cr_assert_eq(crush_osd_add(c, 0, 1.0, h2, 1, &cause), 0, "%s", cause);
	osdmap_inc_init(&inc, 4);
	osdmap_inc_set_crush(&inc, c);
	cr_assert(osdmap_inc_moves_pgs(&m, &inc));
	osdmap_inc_encode(&inc, &b);
	cr_assert_eq(osdmap_inc_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_not_null(back.new_crush);
	cr_assert(crush_equal(back.new_crush, c));
	cr_assert_eq(osdmap_apply(&m, &back, &cause), 0, "%s", cause);
	cr_assert_eq(crush_osd_parent(m.crush, 0), crush_osd_parent(c, 0));
	cr_assert_neq(crush_osd_parent(copy.crush, 0), crush_osd_parent(c, 0),
	    "the copy keeps its own");
	osdmap_inc_clear(&back);

	/* The same through JSON, as clients receive it. */
	j = osdmap_inc_to_json(&inc);
	cr_assert_not_null(json_object_get(j, "crush"));
	cr_assert_eq(osdmap_inc_from_json(j, &back, &cause), 0, "%s", cause);
	cr_assert(crush_equal(back.new_crush, c));
	osdmap_inc_clear(&back);
	json_decref(j);

	/* A pool naming a rule the hierarchy lacks does not apply. */
	osdmap_inc_clear(&inc);
	osdmap_inc_init(&inc, 5);
	p = *osdmap_pool(&m, 1);
	p.crush_rule = 9;
	osdmap_inc_set_pool(&inc, &p);
	cr_assert_eq(osdmap_apply(&m, &inc, &cause), -1);
	cr_assert_not_null(strstr(cause, "crush rule 9"), "%s", cause);
	free(cause);
	cr_assert_eq(m.epoch, 4, "the map is unchanged");
	osdmap_inc_clear(&inc);
	crush_free(c);
	osdmap_clear(&copy);
	osdmap_clear(&m);
	enc_buf_free(&b);
}

Test(osdmap, json_carries_the_hierarchy_and_the_rules)
{
	struct osdmap m, back;
	json_t *j;
	char *cause = NULL;

	sample_crush(&m);
	j = osdmap_to_json(&m);
	cr_assert_not_null(json_object_get(j, "crush"));
	cr_assert_eq(
	    json_integer_value(json_object_get(
		json_array_get(json_object_get(j, "pools"), 0), "crush_rule")),
	    1);
	osdmap_init(&back);
	cr_assert_eq(osdmap_from_json(j, &back, &cause), 0, "%s", cause);
	cr_assert(crush_equal(back.crush, m.crush));
	cr_assert_eq(back.pools[0].crush_rule, 1);
	/* An older monitor's map: no hierarchy, rule 0. */
	json_object_del(j, "crush");
	cr_assert_eq(osdmap_from_json(j, &back, &cause), -1,
	    "rule 1 without a hierarchy");
	free(cause);
	json_object_set_new(json_array_get(json_object_get(j, "pools"), 0),
	    "crush_rule", json_integer(0));
	cr_assert_eq(osdmap_from_json(j, &back, &cause), 0, "%s", cause);
	cr_assert_null(back.crush);
	json_decref(j);
	osdmap_clear(&back);
	osdmap_clear(&m);
}

/* The map's placement is crush_map_pg() with the OSDs' states. */
Test(osdmap, placement_by_the_map_is_the_hierarchys)
{
	struct osdmap m;
	struct osdmap_place *pl;
	struct crush_osd_state st[2];
	int32_t a[OSDMAP_POOL_SIZE_MAX], b[OSDMAP_POOL_SIZE_MAX];
	uint32_t s, rule;
	int na, nb;

	sample_crush(&m);
	m.osds[1].in = 0;
	m.osds[0].reweight = 0x8000;
	pl = osdmap_place_new(&m);
	cr_assert(osdmap_place_has_crush(pl));
	st[0].up = 1;
	st[0].reweight = 0x8000;
	st[1].up = 1;
	st[1].reweight = 0;
	for (rule = 0; rule < 2; rule++)
		for (s = 0; s < 256; s++) {
			na = osdmap_place_pg(pl, 1, rule, s, 2, a);
			nb = crush_map_pg(m.crush, rule, st, 2, 1, s, 2, b);
			cr_assert_eq(na, nb);
			cr_assert_eq(memcmp(a, b, (size_t)na * sizeof *a), 0);
			cr_assert_leq(na, 1, "osd.1 is out");
		}
	cr_assert_eq(osdmap_place_pg(pl, 1, 5, 0, 2, a), 0, "no rule 5");
	osdmap_place_free(pl);
	osdmap_clear(&m);
}
