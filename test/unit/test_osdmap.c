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
	osdmap_set_pool(m, &p);
	m->pool_max = 1;
}

/*
 * A version 2 record made a version 1 one, as an older mapmon wrote it:
 * version 2 only appended the three ratios (24 bytes) to the body.
 */
static void
as_version_1(struct enc_buf *b)
{
	cr_assert_eq(b->data[0], OSDMAP_STRUCT_V);
	cr_assert_eq(OSDMAP_STRUCT_V, 2);
	b->len -= 24;
	b->data[0] = 1;
	enc_put_be32(b->data + 2, (uint32_t)(b->len - 6));
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
	cr_assert_eq(b.data[0], 2, "written as version 2");
	osdmap_init(&back);
	cr_assert_eq(osdmap_decode(b.data, b.len, &back, &cause), 0, "%s",
	    cause);
	cr_assert_eq(back.struct_v, 2);
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
	as_version_1(&b);
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
	as_version_1(&b);
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
