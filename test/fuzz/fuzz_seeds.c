/*
 * fuzz_seeds.c: writes the seed corpora that the real encoders make.
 *
 *	test/fuzz/fuzz_seeds DIR
 *
 * fills DIR/record with one input per store record kind (the key prefix
 * byte, then a value as the monitor writes it; see test/fuzz/fuzz_record.c) and
 * DIR/cmd with PG reports in both forms (see test/fuzz/fuzz_cmd.c).  The files
 * are committed under test/fuzz/; run this again when an encoding changes.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "common/enc.h"
#include "mon/keys.h"
#include "mon/mon_record.h"
#include "map/monmap.h"
#include "map/osdmap.h"
#include "map/pg.h"
#include "net/frame.h"

static const char *seeds_dir;

static void
seeds_mkdir(const char *sub)
{
	char path[1024];

	snprintf(path, sizeof path, "%s/%s", seeds_dir, sub);
	if (mkdir(path, 0755) == -1 && errno != EEXIST) {
		fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* Write sub/name: the byte first (unless -1), then b's bytes. */
static void
seeds_write(const char *sub, const char *name, int first,
    const struct enc_buf *b)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s/%s", seeds_dir, sub, name);
	if ((f = fopen(path, "wb")) == NULL ||
	    (first != -1 && fputc(first, f) == EOF) ||
	    (b->len > 0 && fwrite(b->data, 1, b->len, f) != b->len) ||
	    fclose(f) != 0) {
		fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void
seeds_pg(struct pg_stat *st, uint32_t pool, uint32_t seed, int nosd)
{
	struct pg_id id = { pool, seed };
	int i;

	pg_stat_init(st, id);
	st->state = PG_STATE_ACTIVE | PG_STATE_CLEAN;
	st->version_epoch = 7;
	st->version_v = 1234;
	st->reported_epoch = 9;
	st->reported_seq = 55;
	st->created = 2;
	st->mapping_epoch = 9;
	for (i = 0; i < nosd; i++) {
		st->up[i] = i * 2;
		st->acting[i] = i * 2;
	}
	st->up_len = st->acting_len = (uint8_t)nosd;
	st->up_primary = st->acting_primary = nosd > 0 ? 0 : -1;
	st->last_fresh = st->last_change = 1764500000000000LL;
	st->num_bytes = 4 << 20;
	st->num_objects = 12;
	st->num_object_copies = 36;
}

static void
seeds_osdmap(struct osdmap *m, int nosd)
{
	struct osdmap_osd o;
	struct osdmap_pool p;
	int i;

	osdmap_init(m);
	m->epoch = 12;
	m->created = 1764500000000000LL;
	m->modified = m->created + 5000000;
	m->flags = OSDMAP_FLAG_NOOUT;
	snprintf(m->fsid, sizeof m->fsid,
	    "6f1c1d8e-2b1a-4c55-9a3e-0d6d2c9b7a10");
	for (i = 0; i < nosd; i++) {
		memset(&o, 0, sizeof o);
		o.id = i;
		o.exists = 1;
		o.up = i != 2;
		o.in = 1;
		o.weight = OSDMAP_WEIGHT_ONE;
		o.reweight = OSDMAP_WEIGHT_ONE;
		snprintf(o.addr, sizeof o.addr, "127.0.0.1:%d", 6800 + i);
		o.up_from = 3;
		osdmap_set_osd(m, &o);
	}
	memset(&p, 0, sizeof p);
	p.id = 1;
	snprintf(p.name, sizeof p.name, "rbd");
	p.size = 3;
	p.min_size = 2;
	p.pg_num = 32;
	p.pgp_num = p.pg_num;
	p.created_epoch = 4;
	osdmap_set_pool(m, &p);
	m->pool_max = 1;
}

static void
seeds_record(void)
{
	struct enc_buf b = { 0 };
	struct pg_stat st;
	struct osdmap m;
	struct osdmap_inc inc;
	struct osdmap_osd o;
	struct osdmap_pool p;
	struct monmap mm;
	struct mon_rec rec;
	struct mon_log_entry e;
	char *cause = NULL;

	seeds_mkdir("record");

	seeds_pg(&st, 1, 0x1f, 3);
	pg_stat_encode(&st, &b);
	seeds_write("record", "pg", KEYS_PG, &b);
	seeds_pg(&st, 2, 0, 0);
	st.state = PG_STATE_STALE | PG_STATE_DOWN;
	pg_stat_encode(&st, &b);
	seeds_write("record", "pg-two", KEYS_PG, &b);
	enc_buf_reset(&b);

	seeds_osdmap(&m, 4);
	osdmap_encode(&m, &b);
	seeds_write("record", "osdmap", KEYS_OSDMAP, &b);
	enc_buf_reset(&b);
	osdmap_clear(&m);
	osdmap_init(&m);
	m.epoch = 1;
	snprintf(m.fsid, sizeof m.fsid, "6f1c1d8e-2b1a-4c55-9a3e-0d6d2c9b7a10");
	osdmap_encode(&m, &b);
	seeds_write("record", "osdmap-empty", KEYS_OSDMAP, &b);
	enc_buf_reset(&b);
	osdmap_clear(&m);

	osdmap_inc_init(&inc, 13);
	inc.modified = 1764500010000000LL;
	inc.new_flags = OSDMAP_FLAG_NOOUT | OSDMAP_FLAG_PAUSE;
	inc.new_pool_max = 2;
	memset(&o, 0, sizeof o);
	o.id = 5;
	o.exists = o.up = o.in = 1;
	o.weight = o.reweight = OSDMAP_WEIGHT_ONE;
	snprintf(o.addr, sizeof o.addr, "127.0.0.1:6805");
	osdmap_inc_set_osd(&inc, &o);
	osdmap_inc_remove_osd(&inc, 2);
	memset(&p, 0, sizeof p);
	p.id = 2;
	snprintf(p.name, sizeof p.name, "data");
	p.size = 2;
	p.min_size = 1;
	p.pg_num = 8;
	p.pgp_num = p.pg_num;
	p.created_epoch = 13;
	osdmap_inc_set_pool(&inc, &p);
	osdmap_inc_encode(&inc, &b);
	seeds_write("record", "osdmap-inc", KEYS_OSDMAP_INC, &b);
	enc_buf_reset(&b);
	osdmap_inc_clear(&inc);
	osdmap_inc_init(&inc, 14);
	osdmap_inc_remove_pool(&inc, 1);
	osdmap_inc_encode(&inc, &b);
	seeds_write("record", "osdmap-inc-rmpool", KEYS_OSDMAP_INC, &b);
	enc_buf_reset(&b);
	osdmap_inc_clear(&inc);

	if (monmap_create(&mm, "a", "127.0.0.1:6788", &cause) != 0) {
		fprintf(stderr, "fuzz_seeds: %s\n", cause);
		exit(1);
	}
	monmap_encode(&mm, &b);
	seeds_write("record", "monmap", KEYS_MONMAP, &b);
	enc_buf_reset(&b);

	memset(&rec, 0, sizeof rec);
	rec.osdmap_epoch = 40;
	rec.osdmap_first = 2;
	rec.pgmap_version = 900;
	rec.pgmap_first = 400;
	rec.log_last = 77;
	rec.log_first = 1;
	rec.stamp = 1764500020000000LL;
	mon_record_commit_encode(&rec, &b);
	seeds_write("record", "commit", KEYS_COMMIT, &b);
	enc_buf_reset(&b);

	memset(&e, 0, sizeof e);
	e.seq = 77;
	e.stamp = 1764500020000000LL;
	e.severity = MON_LOG_WARN;
	e.message = (char *)"osd.2 marked down after no report for 30s";
	mon_record_log_encode(&e, &b);
	seeds_write("record", "log", KEYS_LOG, &b);
	enc_buf_free(&b);
}

/* A binary PG report payload (fuzz_cmd: an odd first byte). */
static void
seeds_cmd(void)
{
	struct enc_buf b = { 0 };
	struct pg_stat st;
	json_t *req, *pgs;
	char *s;
	uint32_t i;

	seeds_mkdir("cmd");
	enc_buf_put_u16(&b, FRAME_BINARY_PG_REPORT);
	enc_buf_put_u32(&b, 0);
	enc_buf_put_u32(&b, 3);
	for (i = 0; i < 3; i++) {
		seeds_pg(&st, 1, i, 3);
		pg_stat_encode(&st, &b);
	}
	seeds_write("cmd", "pgreport-binary", 1, &b);
	enc_buf_reset(&b);

	pgs = json_array();
	for (i = 0; i < 2; i++) {
		seeds_pg(&st, 1, i, 2);
		json_array_append_new(pgs, pg_stat_to_json(&st));
	}
	req = json_pack("{s:s, s:i, s:o}", "prefix", "pg report", "osd", 0,
	    "pgs", pgs);
	s = json_dumps(req, JSON_COMPACT);
	enc_buf_put_bytes(&b, s, strlen(s));
	seeds_write("cmd", "pgreport-json", '0', &b);
	free(s);
	json_decref(req);
	enc_buf_free(&b);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_seeds DIR\n");
		return 64;
	}
	seeds_dir = argv[1];
	seeds_record();
	seeds_cmd();
	return 0;
}
