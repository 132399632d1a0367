/*
 * mapmon_fmt.c: plain-text output, laid out as ceph(8) lays out the same
 * commands' output.
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/mapmon.h"
#include "common/stamp.h"
#include "tools/mapmon_fmt.h"

/* Lenient member access: a missing or mistyped member reads as empty. */
static json_int_t
fmt_int(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v))
		return (json_int_t)json_real_value(v);
	if (json_is_boolean(v))
		return json_is_true(v);
	return 0;
}

static double
fmt_num(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : 0.0;
}

static const char *
fmt_str(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : "";
}

/* A scalar as text ("" for null, compact JSON for arrays and objects). */
static char *
fmt_scalar(const json_t *v)
{
	char *s;

	if (v == NULL || json_is_null(v))
		return xstrdup("");
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v)) {
		xasprintf(&s, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return s;
	}
	if (json_is_real(v)) {
		xasprintf(&s, "%g", json_real_value(v));
		return s;
	}
	if (json_is_boolean(v))
		return xstrdup(json_is_true(v) ? "true" : "false");
	if ((s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)) == NULL)
		return xstrdup("");
	return s;
}

/* An array of OSD ids as "[2,0,1]". */
static char *
fmt_id_list(const json_t *a)
{
	char *s, *t;
	json_t *v;
	size_t i;

	s = xstrdup("[");
	json_array_foreach(a, i, v) {
		xasprintf(&t, "%s%s%" JSON_INTEGER_FORMAT, s, i ? "," : "",
		    json_is_integer(v) ? json_integer_value(v) : -1);
		free(s);
		s = t;
	}
	xasprintf(&t, "%s]", s);
	free(s);
	return t;
}

/*
 * A table: cells added row by row, printed with columns as wide as their
 * widest cell, numbers right-aligned as ceph's tables have them.  With
 * text_table, as Ceph's TextTable prints one (src/common/TextTable.cc,
 * columns defined with a heading alignment of LEFT): every heading
 * left-aligned, and the last column padded to its width as the others.
 */
struct fmt_table {
	size_t ncols;
	const char *const *heads;
	const int *right;	/* per column */
	char **cells;
	size_t ncells;
	int text_table;
	size_t cap; /* of cells */
};

/*
 * Room for one more cell in *cells, grown by half again: a listing of
 * 100,000 PGs has 600,000 cells, which growing one at a time copied
 * over and over (minutes under ASan).
 */
static void
fmt_cells_grow(char ***cells, size_t ncells, size_t *cap)
{
	if (ncells < *cap)
		return;
	*cap = *cap < 64 ? 64 : *cap + *cap / 2;
	*cells = xreallocarray(*cells, *cap, sizeof **cells);
}

static void
fmt_table_add(struct fmt_table *t, char *cell)
{
	fmt_cells_grow(&t->cells, t->ncells, &t->cap);
	t->cells[t->ncells++] = cell;
}

static void
fmt_table_print(FILE *f, struct fmt_table *t)
{
	size_t *w, c, i, len;
	const char *s;
	int right;

	w = xcalloc(t->ncols, sizeof *w);
	for (c = 0; c < t->ncols; c++)
		w[c] = strlen(t->heads[c]);
	for (i = 0; i < t->ncells; i++)
		if ((len = strlen(t->cells[i])) > w[i % t->ncols])
			w[i % t->ncols] = len;
	for (i = 0; i < t->ncells + t->ncols; i++) {
		c = i % t->ncols;
		s = i < t->ncols ? t->heads[c] : t->cells[i - t->ncols];
		right = t->right[c] && !(t->text_table && i < t->ncols);
		if (c + 1 == t->ncols && !right && !t->text_table)
			fprintf(f, "%s\n", s);
		else
			fprintf(f, right ? "%*s%s" : "%-*s%s", (int)w[c], s,
			    c + 1 == t->ncols ? "\n" : "  ");
	}
	for (i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	free(w);
	t->cells = NULL;
	t->ncells = 0;
	t->cap = 0;
}

static char *
fmt_i(json_int_t v)
{
	char *s;

	xasprintf(&s, "%" JSON_INTEGER_FORMAT, v);
	return s;
}

static char *
fmt_f5(double v)
{
	char *s;

	xasprintf(&s, "%.5f", v);
	return s;
}

/* The time a mute has left, as Ceph's utimespan_str(), into buf. */
static const char *
fmt_mute_left(const json_t *mute, char *buf, size_t len)
{
	int64_t ttl;

	if (stamp_parse(fmt_str(mute, "ttl"), &ttl) == -1)
		return NULL;
	return stamp_span_format(ttl - stamp_now(), buf, len);
}

/*
 * "(muted: OSD_DOWN(9m) PG_DEGRADED)", as Ceph's get_health_status()
 * ends its one-liner; nothing without mutes.  first: nothing before it.
 */
static void
fmt_health_mutes(FILE *f, const json_t *health, const char *sep1,
    const char *sep2, int first)
{
	json_t *mutes = json_object_get(health, "mutes"), *mu;
	char left[32];
	size_t i;

	if (json_array_size(mutes) == 0)
		return;
	fprintf(f, "%s(muted:", first ? sep1 : sep2);
	json_array_foreach(mutes, i, mu) {
		fprintf(f, " %s", fmt_str(mu, "code"));
		if (fmt_mute_left(mu, left, sizeof left) != NULL)
			fprintf(f, "(%s)", left);
	}
	fputc(')', f);
}

/*
 * The checks that are not muted: their summaries, sep1 before the first,
 * sep2 between; then the mutes.
 */
static void
fmt_health_summaries(FILE *f, const json_t *health, const char *sep1,
    const char *sep2)
{
	const char *key;
	json_t *check;
	int first = 1;

	json_object_foreach(json_object_get(health, "checks"), key, check) {
		if (json_is_true(json_object_get(check, "muted")))
			continue;
		fprintf(f, "%s%s", first ? sep1 : sep2,
		    fmt_str(json_object_get(check, "summary"), "message"));
		first = 0;
	}
	fmt_health_mutes(f, health, sep1, sep2, first);
}

void
mapmon_fmt_health_line(FILE *f, const json_t *health)
{
	fprintf(f, "%s", fmt_str(health, "status"));
	fmt_health_summaries(f, health, " ", "; ");
	fputc('\n', f);
}

/* "HEALTH_WARN" -> "WRN", as `ceph health detail` tags checks. */
static const char *
fmt_severity_tag(const char *severity)
{
	if (strcmp(severity, "HEALTH_ERR") == 0)
		return "ERR";
	if (strcmp(severity, "HEALTH_WARN") == 0)
		return "WRN";
	return "INF";
}

/* A muted check's mark in `health detail', as Ceph's "(MUTED ...) ". */
static void
fmt_health_muted(FILE *f, const json_t *health, const char *code)
{
	json_t *mu;
	char left[32];
	size_t i;

	fprintf(f, "(MUTED");
	json_array_foreach(json_object_get(health, "mutes"), i, mu) {
		if (strcmp(fmt_str(mu, "code"), code) != 0)
			continue;
		if (fmt_mute_left(mu, left, sizeof left) != NULL)
			fprintf(f, " ttl %s", left);
		if (json_is_true(json_object_get(mu, "sticky")))
			fprintf(f, ", STICKY");
		break;
	}
	fprintf(f, ") ");
}

static void
fmt_health_detail(FILE *f, const json_t *health)
{
	const char *key;
	json_t *check, *d;
	size_t i;

	mapmon_fmt_health_line(f, health);
	json_object_foreach(json_object_get(health, "checks"), key, check) {
		if (json_is_true(json_object_get(check, "muted")))
			fmt_health_muted(f, health, key);
		fprintf(f, "[%s] %s: %s\n",
		    fmt_severity_tag(fmt_str(check, "severity")), key,
		    fmt_str(json_object_get(check, "summary"), "message"));
		json_array_foreach(json_object_get(check, "detail"), i, d)
			fprintf(f, "    %s\n", fmt_str(d, "message"));
	}
}

static void
fmt_pgs_by_state(FILE *f, const json_t *states, const char *indent)
{
	json_int_t count, widest = 0;
	json_t *s;
	size_t i;
	int w;

	json_array_foreach(states, i, s)
		if ((count = fmt_int(s, "count")) > widest)
			widest = count;
	w = snprintf(NULL, 0, "%" JSON_INTEGER_FORMAT, widest);
	json_array_foreach(states, i, s)
		fprintf(f, "%s%-*" JSON_INTEGER_FORMAT " %s\n",
		    i == 0 ? "" : indent, w, fmt_int(s, "count"),
		    fmt_str(s, "state_name"));
}

static void
fmt_status(FILE *f, const json_t *d)
{
	const json_t *health = json_object_get(d, "health");
	const json_t *monmap = json_object_get(d, "monmap");
	const json_t *osdmap = json_object_get(d, "osdmap");
	const json_t *pgmap = json_object_get(d, "pgmap");
	const char *flags;
	json_t *q, *n, *states;
	char b[32];
	size_t i;

	fprintf(f, "  cluster:\n");
	fprintf(f, "    id:     %s\n", fmt_str(d, "fsid"));
	/* Ceph's health in status: a check or the mutes a line. */
	fprintf(f, "    health: %s", fmt_str(health, "status"));
	fmt_health_summaries(f, health, "\n            ", "\n            ");
	fputc('\n', f);

	fprintf(f, "\n  services:\n");
	fprintf(f, "    mon: %" JSON_INTEGER_FORMAT " daemons, quorum",
	    fmt_int(monmap, "num_mons"));
	if ((q = json_object_get(d, "quorum_names")) == NULL)
		q = json_object_get(monmap, "quorum_names");
	json_array_foreach(q, i, n)
		fprintf(f, "%s%s", i ? "," : " ",
		    json_string_value(n) ? json_string_value(n) : "");
	if (json_array_size(q) == 0)
		fprintf(f, " none: this monitor is out of quorum");
	else if (json_object_get(d, "quorum_age") != NULL) {
		int64_t age = (int64_t)fmt_int(d, "quorum_age") * 1000000;

		fprintf(f, " (age %s)", stamp_span_format(age, b, sizeof b));
	}
	fprintf(f, "\n");
	fprintf(f, "    osd: %" JSON_INTEGER_FORMAT " osds: %"
	    JSON_INTEGER_FORMAT
	    " up, %" JSON_INTEGER_FORMAT " in\n", fmt_int(osdmap, "num_osds"),
	    fmt_int(osdmap, "num_up_osds"), fmt_int(osdmap, "num_in_osds"));
	flags = fmt_str(osdmap, "flags");
	if (*flags != '\0')
		fprintf(f, "         flags %s\n", flags);

	fprintf(f, "\n  data:\n");
	fprintf(f, "    pools:   %" JSON_INTEGER_FORMAT " pools, %"
	    JSON_INTEGER_FORMAT " pgs\n", fmt_int(pgmap, "num_pools"),
	    fmt_int(pgmap, "num_pgs"));
	fprintf(f, "    objects: %" JSON_INTEGER_FORMAT " objects, %s\n",
	    fmt_int(pgmap, "num_objects"), bytes_format((uint64_t)
	    fmt_int(pgmap, "data_bytes"), b, sizeof b));
	fprintf(f, "    usage:   %s used, ",
	    bytes_format((uint64_t)fmt_int(pgmap, "bytes_used"), b, sizeof b));
	fprintf(f, "%s / ",
	    bytes_format((uint64_t)fmt_int(pgmap, "bytes_avail"), b, sizeof b));
	fprintf(f, "%s avail\n",
	    bytes_format((uint64_t)fmt_int(pgmap, "bytes_total"), b, sizeof b));
	states = json_object_get(pgmap, "pgs_by_state");
	fprintf(f, "    pgs:     ");
	if (json_array_size(states) == 0)
		fprintf(f, "none\n");
	else
		fmt_pgs_by_state(f, states, "             ");
	if (fmt_int(pgmap, "degraded_objects") > 0)
		fprintf(f, "             %" JSON_INTEGER_FORMAT
		    " objects degraded\n", fmt_int(pgmap, "degraded_objects"));
	if (fmt_int(pgmap, "misplaced_objects") > 0)
		fprintf(f, "             %" JSON_INTEGER_FORMAT
		    " objects misplaced\n",
		    fmt_int(pgmap, "misplaced_objects"));
	if (fmt_int(pgmap, "unfound_objects") > 0)
		fprintf(f, "             %" JSON_INTEGER_FORMAT
		    " objects unfound\n", fmt_int(pgmap, "unfound_objects"));
}

/* A weight as Ceph's weightf_t writes it: "0", else five decimals. */
static char *
fmt_weight(double w)
{
	char *s;

	if (w < -0.01)
		return xstrdup("-");
	if (w < 0.000001)
		return xstrdup("0");
	xasprintf(&s, "%.5f", w);
	return s;
}

/*
 * One row of `osd tree' or, without states, `osd crush tree': the name
 * indented four spaces a level, a bucket's after its type; a bucket's
 * STATUS, REWEIGHT and PRI-AFF empty.
 */
static void
fmt_tree_row(struct fmt_table *t, const json_t *n, int states)
{
	json_int_t id = fmt_int(n, "id"), depth = fmt_int(n, "depth");
	char *name;

	fmt_table_add(t, fmt_i(id));
	fmt_table_add(t, xstrdup(fmt_str(n, "device_class")));
	fmt_table_add(t, fmt_weight(fmt_num(n, "crush_weight")));
	if (id < 0)
		xasprintf(&name, "%*s%s %s", (int)(4 * depth), "",
		    fmt_str(n, "type"), fmt_str(n, "name"));
	else
		xasprintf(&name, "%*s%s", (int)(4 * depth), "",
		    fmt_str(n, "name"));
	fmt_table_add(t, name);
	if (!states)
		return;
	if (id < 0) {
		fmt_table_add(t, xstrdup(""));
		fmt_table_add(t, xstrdup(""));
		fmt_table_add(t, xstrdup(""));
		return;
	}
	fmt_table_add(t, xstrdup(fmt_str(n, "status")));
	fmt_table_add(t, fmt_weight(fmt_num(n, "reweight")));
	fmt_table_add(t,
	    fmt_weight(json_object_get(n, "primary_affinity") != NULL ?
		    fmt_num(n, "primary_affinity") :
		    1.0));
}

/*
 * `osd tree' (states) and `osd crush tree': Ceph's columns (its
 * OSDTreePlainDumper and CrushTreePlainDumper, TextTables whose headings
 * are left-aligned and whose every row is padded to the full width, as
 * ceph 16.2.15 prints `ID  CLASS  WEIGHT   TYPE NAME ...'), the stray OSDs
 * last.
 */
static void
fmt_osd_tree(FILE *f, const json_t *d, int states)
{
	static const char *const heads[] = { "ID", "CLASS", "WEIGHT",
		"TYPE NAME", "STATUS", "REWEIGHT", "PRI-AFF" };
	static const int right[] = { 1, 1, 1, 0, 1, 1, 1 };
	struct fmt_table t = { states ? 7 : 4, heads, right, NULL, 0, 1, 0 };
	json_t *n;
	size_t i;

	json_array_foreach(json_object_get(d, "nodes"), i, n)
		fmt_tree_row(&t, n, states);
	json_array_foreach(json_object_get(d, "stray"), i, n)
		fmt_tree_row(&t, n, states);
	fmt_table_print(f, &t);
}

/* `osd map': Ceph's line. */
static void
fmt_osd_map(FILE *f, const json_t *d)
{
	char *up = fmt_id_list(json_object_get(d, "up")),
	     *acting = fmt_id_list(json_object_get(d, "acting"));

	fprintf(f,
	    "osdmap e%" JSON_INTEGER_FORMAT " pool '%s' (%" JSON_INTEGER_FORMAT
	    ") object '%s' -> pg %s (%s) -> up (%s, p%" JSON_INTEGER_FORMAT
	    ") acting (%s, p%" JSON_INTEGER_FORMAT ")\n",
	    fmt_int(d, "epoch"), fmt_str(d, "pool"), fmt_int(d, "pool_id"),
	    fmt_str(d, "objname"), fmt_str(d, "raw_pgid"), fmt_str(d, "pgid"),
	    up, fmt_int(d, "up_primary"), acting, fmt_int(d, "acting_primary"));
	free(up);
	free(acting);
}

/*
 * A pool as Ceph's `osd pool ls detail' and `osd dump' write one (what
 * mapmon has of it: no object_hash, flags or stripe_width), then mapmon's
 * created_epoch.
 */
static void
fmt_pool_line(FILE *f, const json_t *p)
{
	json_t *apps, *v;
	const char *app;
	int first = 0;
	json_int_t pgp = json_object_get(p, "pgp_num") != NULL ?
	    fmt_int(p, "pgp_num") :
	    fmt_int(p, "pg_num");

	fprintf(f,
	    "pool %" JSON_INTEGER_FORMAT
	    " '%s' replicated size %" JSON_INTEGER_FORMAT
	    " min_size %" JSON_INTEGER_FORMAT
	    " crush_rule %" JSON_INTEGER_FORMAT " pg_num %" JSON_INTEGER_FORMAT
	    " pgp_num %" JSON_INTEGER_FORMAT
	    " created_epoch %" JSON_INTEGER_FORMAT,
	    fmt_int(p, "pool"), fmt_str(p, "pool_name"), fmt_int(p, "size"),
	    fmt_int(p, "min_size"), fmt_int(p, "crush_rule"),
	    fmt_int(p, "pg_num"), pgp, fmt_int(p, "created_epoch"));
	/* Ceph's pg_pool_t print(): " application rbd,rgw", last. */
	apps = json_object_get(p, "application_metadata");
	if (json_object_size(apps) > 0) {
		fprintf(f, " application");
		json_object_foreach(apps, app, v)
			fprintf(f, "%s%s", first++ ? "," : " ", app);
	}
	fprintf(f, "\n");
}

/* An OSD's state words, "exists,up" (from its "state", else up). */
static char *
fmt_osd_state(const json_t *o)
{
	json_t *st = json_object_get(o, "state"), *v;
	char *s, *t;
	size_t i;

	if (!json_is_array(st))
		return xstrdup(fmt_int(o, "up") ? "exists,up" : "exists");
	s = xstrdup("");
	json_array_foreach(st, i, v) {
		xasprintf(&t, "%s%s%s", s, i ? "," : "",
		    json_is_string(v) ? json_string_value(v) : "");
		free(s);
		s = t;
	}
	return s;
}

/* `osd dump': Ceph's OSDMap::print(), with what mapmon has. */
static void
fmt_osd_dump(FILE *f, const json_t *d)
{
	json_t *p, *o;
	char *w, *state;
	size_t i;
	int up, in;

	fprintf(f, "epoch %" JSON_INTEGER_FORMAT "\n", fmt_int(d, "epoch"));
	fprintf(f, "fsid %s\n", fmt_str(d, "fsid"));
	fprintf(f, "created %s\n", fmt_str(d, "created"));
	fprintf(f, "modified %s\n", fmt_str(d, "modified"));
	fprintf(f, "flags %s\n", fmt_str(d, "flags"));
	if (json_object_get(d, "crush_version") != NULL)
		fprintf(f, "crush_version %" JSON_INTEGER_FORMAT "\n",
		    fmt_int(d, "crush_version"));
	fprintf(f, "full_ratio %g\n", fmt_num(d, "full_ratio"));
	fprintf(f, "backfillfull_ratio %g\n", fmt_num(d, "backfillfull_ratio"));
	fprintf(f, "nearfull_ratio %g\n", fmt_num(d, "nearfull_ratio"));
	fprintf(f, "pool_max %" JSON_INTEGER_FORMAT "\n",
	    fmt_int(d, "pool_max"));
	json_array_foreach(json_object_get(d, "pools"), i, p)
		fmt_pool_line(f, p);
	fprintf(f, "max_osd %" JSON_INTEGER_FORMAT "\n", fmt_int(d, "max_osd"));
	json_array_foreach(json_object_get(d, "osds"), i, o) {
		up = fmt_int(o, "up") != 0;
		in = fmt_int(o, "in") != 0;
		w = fmt_scalar(json_object_get(o, "weight"));
		state = fmt_osd_state(o);
		fprintf(f,
		    "osd.%" JSON_INTEGER_FORMAT "%s%s weight %s "
		    "up_from %" JSON_INTEGER_FORMAT
		    " down_at %" JSON_INTEGER_FORMAT " %s %s\n",
		    fmt_int(o, "osd"), up ? " up  " : " down",
		    in ? " in " : " out", w, fmt_int(o, "up_from"),
		    fmt_int(o, "down_at"), fmt_str(o, "public_addr"), state);
		free(w);
		free(state);
	}
}

/* `osd ls': an id a line, as Ceph's. */
static void
fmt_osd_ls(FILE *f, const json_t *d)
{
	json_t *v;
	size_t i;

	json_array_foreach(d, i, v)
		fprintf(f, "%" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
}

/* Bytes as Ceph's byte_u_t ("1.5 GiB"). */
static char *
fmt_bytes(json_int_t v)
{
	char b[BYTES_BUFSIZE];

	return xstrdup(bytes_format(v > 0 ? (uint64_t)v : 0, b, sizeof b));
}

/*
 * A count as Ceph's si_u_t ("87.45k", "3M"): 1000-based units, as many
 * decimals (two at most) as fit in seven characters.
 */
static char *
fmt_si(json_int_t v)
{
	static const char *const units[] = { "", "k", "M", "G", "T", "P", "E" };
	uint64_t n = v > 0 ? (uint64_t)v : 0, mult = 1;
	size_t u = 0;
	char *s;
	int prec;

	while (n / mult >= 1000 && u + 1 < nitems(units)) {
		mult *= 1000;
		u++;
	}
	if (u == 0 || n % mult == 0) {
		xasprintf(&s, "%" PRIu64 "%s", n / mult, units[u]);
		return s;
	}
	for (prec = 2; prec > 0; prec--)
		if (snprintf(NULL, 0, "%.*f%s", prec, (double)n / (double)mult,
			units[u]) <= 7)
			break;
	xasprintf(&s, "%.*f%s", prec, (double)n / (double)mult, units[u]);
	return s;
}

/* A percentage as Ceph's percentify(): "0" below 0.01, else two decimals. */
static char *
fmt_percent(double pct)
{
	char *s;

	if (pct < 0.01)
		return xstrdup("0");
	xasprintf(&s, "%.2f", pct);
	return s;
}

/*
 * `osd df''s %USE and VAR, as Ceph's lowprecision_t: "-" for none (a
 * negative value), "0" below 0.001, else two decimals.
 */
static char *
fmt_lowprec(double v)
{
	char *s;

	if (v < -0.01)
		return xstrdup("-");
	if (v < 0.001)
		return xstrdup("0");
	xasprintf(&s, "%.2f", v);
	return s;
}

static void
fmt_lowprec_print(FILE *f, double v)
{
	char *s = fmt_lowprec(v);

	fputs(s, f);
	free(s);
}

/* `df': Ceph's RAW STORAGE (a row per device class, then TOTAL), POOLS. */
static void
fmt_df(FILE *f, const json_t *d)
{
	static const char *const raw_heads[] = { "CLASS", "SIZE", "AVAIL",
		"USED", "RAW USED", "%RAW USED" };
	static const int raw_right[] = { 0, 1, 1, 1, 1, 1 };
	static const char *const pool_heads[] = { "POOL", "ID", "PGS", "STORED",
		"OBJECTS", "USED", "%USED", "MAX AVAIL" };
	static const int pool_right[] = { 0, 1, 1, 1, 1, 1, 1, 1 };
	struct fmt_table t = { nitems(raw_heads), raw_heads, raw_right, NULL, 0,
		0, 0 };
	const json_t *stats = json_object_get(d, "stats"), *c, *st;
	const char *name;
	json_t *p;
	size_t i;

	fprintf(f, "--- RAW STORAGE ---\n");
	json_object_foreach(json_object_get(d, "stats_by_class"), name, c) {
		fmt_table_add(&t, xstrdup(name));
		fmt_table_add(&t, fmt_bytes(fmt_int(c, "total_bytes")));
		fmt_table_add(&t, fmt_bytes(fmt_int(c, "total_avail_bytes")));
		fmt_table_add(&t, fmt_bytes(fmt_int(c, "total_used_bytes")));
		fmt_table_add(&t,
		    fmt_bytes(fmt_int(c, "total_used_raw_bytes")));
		fmt_table_add(&t,
		    fmt_percent(100.0 * fmt_num(c, "total_used_raw_ratio")));
	}
	fmt_table_add(&t, xstrdup("TOTAL"));
	fmt_table_add(&t, fmt_bytes(fmt_int(stats, "total_bytes")));
	fmt_table_add(&t, fmt_bytes(fmt_int(stats, "total_avail_bytes")));
	fmt_table_add(&t, fmt_bytes(fmt_int(stats, "total_used_bytes")));
	fmt_table_add(&t, fmt_bytes(fmt_int(stats, "total_used_raw_bytes")));
	fmt_table_add(&t,
	    fmt_percent(100.0 * fmt_num(stats, "total_used_raw_ratio")));
	fmt_table_print(f, &t);

	fprintf(f, "\n--- POOLS ---\n");
	t = (struct fmt_table){ nitems(pool_heads), pool_heads, pool_right,
		NULL, 0, 0, 0 };
	json_array_foreach(json_object_get(d, "pools"), i, p) {
		st = json_object_get(p, "stats");
		fmt_table_add(&t, xstrdup(fmt_str(p, "name")));
		fmt_table_add(&t, fmt_i(fmt_int(p, "id")));
		fmt_table_add(&t, fmt_i(fmt_int(p, "pgs")));
		fmt_table_add(&t, fmt_bytes(fmt_int(st, "stored")));
		fmt_table_add(&t, fmt_si(fmt_int(st, "objects")));
		fmt_table_add(&t, fmt_bytes(fmt_int(st, "bytes_used")));
		fmt_table_add(&t,
		    fmt_percent(100.0 * fmt_num(st, "percent_used")));
		fmt_table_add(&t, fmt_bytes(fmt_int(st, "max_avail")));
	}
	fmt_table_print(f, &t);
}

/* `osd df': Ceph's columns, the TOTAL row, then MIN/MAX VAR and STDDEV. */
static void
fmt_osd_df(FILE *f, const json_t *d)
{
	static const char *const heads[] = { "ID", "CLASS", "WEIGHT",
		"REWEIGHT", "SIZE", "RAW USE", "DATA", "OMAP", "META", "AVAIL",
		"%USE", "VAR", "PGS", "STATUS" };
	static const int right[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct fmt_table t = { nitems(heads), heads, right, NULL, 0, 0, 0 };
	const json_t *sum = json_object_get(d, "summary");
	json_t *n;
	size_t i;

	json_array_foreach(json_object_get(d, "nodes"), i, n) {
		fmt_table_add(&t, fmt_i(fmt_int(n, "id")));
		fmt_table_add(&t, xstrdup(fmt_str(n, "device_class")));
		fmt_table_add(&t, fmt_f5(fmt_num(n, "crush_weight")));
		fmt_table_add(&t, fmt_f5(fmt_num(n, "reweight")));
		fmt_table_add(&t, fmt_bytes(fmt_int(n, "kb") * 1024));
		fmt_table_add(&t, fmt_bytes(fmt_int(n, "kb_used") * 1024));
		fmt_table_add(&t, fmt_bytes(fmt_int(n, "kb_used_data") * 1024));
		fmt_table_add(&t, fmt_bytes(fmt_int(n, "kb_used_omap") * 1024));
		fmt_table_add(&t, fmt_bytes(fmt_int(n, "kb_used_meta") * 1024));
		fmt_table_add(&t, fmt_bytes(fmt_int(n, "kb_avail") * 1024));
		fmt_table_add(&t, fmt_lowprec(fmt_num(n, "utilization")));
		fmt_table_add(&t, fmt_lowprec(fmt_num(n, "var")));
		fmt_table_add(&t, fmt_i(fmt_int(n, "pgs")));
		fmt_table_add(&t, xstrdup(fmt_str(n, "status")));
	}
	for (i = 0; i < 3; i++)
		fmt_table_add(&t, xstrdup(""));
	fmt_table_add(&t, xstrdup("TOTAL"));
	fmt_table_add(&t, fmt_bytes(fmt_int(sum, "total_kb") * 1024));
	fmt_table_add(&t, fmt_bytes(fmt_int(sum, "total_kb_used") * 1024));
	fmt_table_add(&t, fmt_bytes(fmt_int(sum, "total_kb_used_data") * 1024));
	fmt_table_add(&t, fmt_bytes(fmt_int(sum, "total_kb_used_omap") * 1024));
	fmt_table_add(&t, fmt_bytes(fmt_int(sum, "total_kb_used_meta") * 1024));
	fmt_table_add(&t, fmt_bytes(fmt_int(sum, "total_kb_avail") * 1024));
	fmt_table_add(&t, fmt_lowprec(fmt_num(sum, "average_utilization")));
	for (i = 0; i < 3; i++)
		fmt_table_add(&t, xstrdup(""));
	fmt_table_print(f, &t);
	fprintf(f, "MIN/MAX VAR: ");
	fmt_lowprec_print(f, fmt_num(sum, "min_var"));
	fprintf(f, "/");
	fmt_lowprec_print(f, fmt_num(sum, "max_var"));
	fprintf(f, "  STDDEV: ");
	fmt_lowprec_print(f, fmt_num(sum, "dev"));
	fprintf(f, "\n");
}

static void
fmt_osd_stat(FILE *f, const json_t *d)
{
	fprintf(f, "%" JSON_INTEGER_FORMAT " osds: %" JSON_INTEGER_FORMAT
	    " up, %" JSON_INTEGER_FORMAT " in; epoch: e%" JSON_INTEGER_FORMAT
	    "\n", fmt_int(d, "num_osds"), fmt_int(d, "num_up_osds"),
	    fmt_int(d, "num_in_osds"), fmt_int(d, "epoch"));
	if (*fmt_str(d, "flags") != '\0')
		fprintf(f, "flags %s\n", fmt_str(d, "flags"));
}

static void
fmt_pool_ls(FILE *f, const json_t *d)
{
	json_t *p;
	size_t i;

	json_array_foreach(d, i, p) {
		if (json_is_string(p))
			fprintf(f, "%s\n", json_string_value(p));
		else
			fmt_pool_line(f, p);
	}
}

/* `osd pool get`: "size: 3" for each value, as ceph prints it. */
static void
fmt_key_values(FILE *f, const json_t *d, const char *const *skip)
{
	const char *key;
	const char *const *s;
	json_t *v;
	char *text;

	if (!json_is_object(d)) {
		text = fmt_scalar(d);
		fprintf(f, "%s\n", text);
		free(text);
		return;
	}
	json_object_foreach((json_t *)d, key, v) {
		for (s = skip; s != NULL && *s != NULL; s++)
			if (strcmp(*s, key) == 0)
				break;
		if (s != NULL && *s != NULL)
			continue;
		text = fmt_scalar(v);
		fprintf(f, "%s: %s\n", key, text);
		free(text);
	}
}

/* The objects' line parts of Ceph's recovery summary, "; 3/9 ...". */
static void
fmt_recovery(FILE *f, const json_t *d, const char *sep)
{
	static const struct {
		const char *objects, *total, *what;
	} parts[] = {
		{ "degraded_objects", "degraded_total", "degraded" },
		{ "misplaced_objects", "misplaced_total", "misplaced" },
		{ "unfound_objects", "unfound_total", "unfound" },
	};
	json_int_t n, total;
	size_t i;

	for (i = 0; i < nitems(parts); i++) {
		n = fmt_int(d, parts[i].objects);
		total = fmt_int(d, parts[i].total);
		if (n <= 0 || total <= 0)
			continue;
		fprintf(f,
		    "%s%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT
		    " objects %s (%.3f%%)",
		    sep, n, total, parts[i].what,
		    100.0 * (double)n / (double)total);
	}
}

/* `pg stat', as Ceph's PGMapDigest::print_oneline_summary(). */
static void
fmt_pg_stat(FILE *f, const json_t *d)
{
	const json_t *sum = json_object_get(d, "pg_summary");
	json_t *s;
	size_t i;
	char b[BYTES_BUFSIZE];

	fprintf(f, "%" JSON_INTEGER_FORMAT " pgs: ", fmt_int(sum, "num_pgs"));
	json_array_foreach(json_object_get(sum, "num_pg_by_state"), i, s)
		fprintf(f, "%s%" JSON_INTEGER_FORMAT " %s", i ? ", " : "",
		    fmt_int(s, "num"), fmt_str(s, "name"));
	fprintf(f, "; %s data, ",
	    bytes_format((uint64_t)fmt_int(sum, "num_bytes"), b, sizeof b));
	fprintf(f, "%s used, ",
	    bytes_format((uint64_t)fmt_int(sum, "total_used_bytes"), b,
		sizeof b));
	fprintf(f, "%s / ",
	    bytes_format((uint64_t)fmt_int(sum, "total_avail_bytes"), b,
		sizeof b));
	fprintf(f, "%s avail",
	    bytes_format((uint64_t)fmt_int(sum, "total_bytes"), b, sizeof b));
	fmt_recovery(f, sum, "; ");
	fputc('\n', f);
}

/* A member that is a string or a number, as text. */
static char *
fmt_member(const json_t *o, const char *key)
{
	return fmt_scalar(json_object_get(o, key));
}

/*
 * A table as Ceph's TextTable prints one: every column as wide as its
 * widest cell or heading, each heading and cell aligned as its column
 * says ('L' or 'R' in hd and col), every cell padded (the last too),
 * columns apart by two spaces.
 */
struct fmt_ctable {
	size_t ncols;
	const char *const *heads; /* NULL: headings of "" */
	const char *hd;
	const char *col;
	char **cells;
	size_t ncells;
	size_t cap; /* of cells */
};

static void
fmt_ctable_add(struct fmt_ctable *t, char *cell)
{
	fmt_cells_grow(&t->cells, t->ncells, &t->cap);
	t->cells[t->ncells++] = cell;
}

static void
fmt_ctable_print(FILE *f, struct fmt_ctable *t)
{
	size_t *w, c, i, len;
	const char *s;
	int right;

	w = xcalloc(t->ncols, sizeof *w);
	for (c = 0; c < t->ncols; c++)
		w[c] = t->heads != NULL ? strlen(t->heads[c]) : 0;
	for (i = 0; i < t->ncells; i++)
		if ((len = strlen(t->cells[i])) > w[i % t->ncols])
			w[i % t->ncols] = len;
	for (i = 0; i < t->ncells + t->ncols; i++) {
		c = i % t->ncols;
		if (i < t->ncols) {
			s = t->heads != NULL ? t->heads[c] : "";
			right = t->hd[c] == 'R';
		} else {
			s = t->cells[i - t->ncols];
			right = t->col[c] == 'R';
		}
		fprintf(f, right ? "%s%*s" : "%s%-*s", c > 0 ? "  " : "",
		    (int)w[c], s);
		if (c + 1 == t->ncols)
			fputc('\n', f);
	}
	for (i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	free(w);
	t->cells = NULL;
	t->ncells = 0;
	t->cap = 0;
}

/* A count: an integer member, as text. */
static char *
fmt_count(const json_t *o, const char *key)
{
	return fmt_i(fmt_int(o, key));
}

/* What Ceph adds below the tables that show omap figures. */
static void
fmt_omap_note(FILE *f)
{
	fprintf(f,
	    "\n* NOTE: Omap statistics are gathered during deep scrub "
	    "and may be inaccurate soon afterwards depending on utilization. "
	    "See http://docs.ceph.com/en/latest/dev/placement-group/"
	    "#omap-statistics for further details.\n");
}

/* `pg dump pgs_brief', `pg dump_stuck': Ceph's brief PG table. */
static void
fmt_pg_brief(FILE *f, const json_t *pgs)
{
	static const char *const heads[] = { "PG_STAT", "STATE", "UP",
		"UP_PRIMARY", "ACTING", "ACTING_PRIMARY" };
	struct fmt_ctable t = { nitems(heads), heads, "LLLLLL", "LRRRRR", NULL,
		0, 0 };
	json_t *p;
	size_t i;

	json_array_foreach(pgs, i, p) {
		fmt_ctable_add(&t, fmt_member(p, "pgid"));
		fmt_ctable_add(&t, fmt_member(p, "state"));
		fmt_ctable_add(&t, fmt_id_list(json_object_get(p, "up")));
		fmt_ctable_add(&t, fmt_count(p, "up_primary"));
		fmt_ctable_add(&t, fmt_id_list(json_object_get(p, "acting")));
		fmt_ctable_add(&t, fmt_count(p, "acting_primary"));
	}
	fmt_ctable_print(f, &t);
}

/* `pg dump pgs': Ceph's PGMap::dump_pg_stats_plain(), every column. */
static void
fmt_pg_full(FILE *f, const json_t *pgs)
{
	static const char *const heads[] = { "PG_STAT", "OBJECTS",
		"MISSING_ON_PRIMARY", "DEGRADED", "MISPLACED", "UNFOUND",
		"BYTES", "OMAP_BYTES*", "OMAP_KEYS*", "LOG", "DISK_LOG",
		"STATE", "STATE_STAMP", "VERSION", "REPORTED", "UP",
		"UP_PRIMARY", "ACTING", "ACTING_PRIMARY", "LAST_SCRUB",
		"SCRUB_STAMP", "LAST_DEEP_SCRUB", "DEEP_SCRUB_STAMP",
		"SNAPTRIMQ_LEN" };
	struct fmt_ctable t = { nitems(heads), heads,
		"LLLLLLLLLLLLLLLLLLLLLLLL", "LRRRRRRRRRRRRRRRRRRRRRRR", NULL, 0,
		0 };
	json_t *p, *sum;
	size_t i;
	char *s;

	json_array_foreach(pgs, i, p) {
		sum = json_object_get(p, "stat_sum");
		fmt_ctable_add(&t, fmt_member(p, "pgid"));
		fmt_ctable_add(&t, fmt_count(sum, "num_objects"));
		fmt_ctable_add(&t,
		    fmt_count(sum, "num_objects_missing_on_primary"));
		fmt_ctable_add(&t, fmt_count(sum, "num_objects_degraded"));
		fmt_ctable_add(&t, fmt_count(sum, "num_objects_misplaced"));
		fmt_ctable_add(&t, fmt_count(sum, "num_objects_unfound"));
		fmt_ctable_add(&t, fmt_count(sum, "num_bytes"));
		fmt_ctable_add(&t, fmt_count(sum, "num_omap_bytes"));
		fmt_ctable_add(&t, fmt_count(sum, "num_omap_keys"));
		fmt_ctable_add(&t, fmt_count(p, "log_size"));
		fmt_ctable_add(&t, fmt_count(p, "ondisk_log_size"));
		fmt_ctable_add(&t, fmt_member(p, "state"));
		fmt_ctable_add(&t, fmt_member(p, "last_change"));
		fmt_ctable_add(&t, fmt_member(p, "version"));
		xasprintf(&s, "%" JSON_INTEGER_FORMAT ":%" JSON_INTEGER_FORMAT,
		    fmt_int(p, "reported_epoch"), fmt_int(p, "reported_seq"));
		fmt_ctable_add(&t, s);
		fmt_ctable_add(&t, fmt_id_list(json_object_get(p, "up")));
		fmt_ctable_add(&t, fmt_count(p, "up_primary"));
		fmt_ctable_add(&t, fmt_id_list(json_object_get(p, "acting")));
		fmt_ctable_add(&t, fmt_count(p, "acting_primary"));
		fmt_ctable_add(&t, fmt_member(p, "last_scrub"));
		fmt_ctable_add(&t, fmt_member(p, "last_scrub_stamp"));
		fmt_ctable_add(&t, fmt_member(p, "last_deep_scrub"));
		fmt_ctable_add(&t, fmt_member(p, "last_deep_scrub_stamp"));
		fmt_ctable_add(&t, fmt_count(p, "snaptrimq_len"));
	}
	fmt_ctable_print(f, &t);
}

/* A span since a stamp member, as Ceph's SINCE: "36s", "5m". */
static char *
fmt_since(const json_t *o, const char *key, int64_t now)
{
	char buf[32];
	int64_t us;

	if (stamp_parse(fmt_str(o, key), &us) == -1)
		return xstrdup("-");
	return xstrdup(stamp_span_format(now - us, buf, sizeof buf));
}

/* `pg ls' and its kin: Ceph's PGMap::dump_filtered_pg_stats(). */
static void
fmt_pg_ls(FILE *f, const json_t *pgs)
{
	static const char *const heads[] = { "PG", "OBJECTS", "DEGRADED",
		"MISPLACED", "UNFOUND", "BYTES", "OMAP_BYTES*", "OMAP_KEYS*",
		"LOG", "STATE", "SINCE", "VERSION", "REPORTED", "UP", "ACTING",
		"SCRUB_STAMP", "DEEP_SCRUB_STAMP" };
	struct fmt_ctable t = { nitems(heads), heads, "LLLLLLLLLLLLLLLLL",
		"LRRRRRRRRRRRRRRRR", NULL, 0, 0 };
	int64_t now = stamp_now();
	json_t *p, *sum;
	char *s, *ids;
	size_t i;

	json_array_foreach(pgs, i, p) {
		sum = json_object_get(p, "stat_sum");
		fmt_ctable_add(&t, fmt_member(p, "pgid"));
		fmt_ctable_add(&t, fmt_count(sum, "num_objects"));
		fmt_ctable_add(&t, fmt_count(sum, "num_objects_degraded"));
		fmt_ctable_add(&t, fmt_count(sum, "num_objects_misplaced"));
		fmt_ctable_add(&t, fmt_count(sum, "num_objects_unfound"));
		fmt_ctable_add(&t, fmt_count(sum, "num_bytes"));
		fmt_ctable_add(&t, fmt_count(sum, "num_omap_bytes"));
		fmt_ctable_add(&t, fmt_count(sum, "num_omap_keys"));
		fmt_ctable_add(&t, fmt_count(p, "log_size"));
		fmt_ctable_add(&t, fmt_member(p, "state"));
		fmt_ctable_add(&t, fmt_since(p, "last_change", now));
		fmt_ctable_add(&t, fmt_member(p, "version"));
		xasprintf(&s, "%" JSON_INTEGER_FORMAT ":%" JSON_INTEGER_FORMAT,
		    fmt_int(p, "reported_epoch"), fmt_int(p, "reported_seq"));
		fmt_ctable_add(&t, s);
		ids = fmt_id_list(json_object_get(p, "up"));
		xasprintf(&s, "%sp%" JSON_INTEGER_FORMAT, ids,
		    fmt_int(p, "up_primary"));
		free(ids);
		fmt_ctable_add(&t, s);
		ids = fmt_id_list(json_object_get(p, "acting"));
		xasprintf(&s, "%sp%" JSON_INTEGER_FORMAT, ids,
		    fmt_int(p, "acting_primary"));
		free(ids);
		fmt_ctable_add(&t, s);
		fmt_ctable_add(&t, fmt_member(p, "last_scrub_stamp"));
		fmt_ctable_add(&t, fmt_member(p, "last_deep_scrub_stamp"));
	}
	fmt_ctable_print(f, &t);
	fmt_omap_note(f);
}

/* The counters of a pool's or the cluster's row of `pg dump'. */
static void
fmt_pool_cells(struct fmt_ctable *t, const json_t *st)
{
	const json_t *sum = json_object_get(st, "stat_sum");

	fmt_ctable_add(t, fmt_count(sum, "num_objects"));
	fmt_ctable_add(t, fmt_count(sum, "num_objects_missing_on_primary"));
	fmt_ctable_add(t, fmt_count(sum, "num_objects_degraded"));
	fmt_ctable_add(t, fmt_count(sum, "num_objects_misplaced"));
	fmt_ctable_add(t, fmt_count(sum, "num_objects_unfound"));
	fmt_ctable_add(t, fmt_count(sum, "num_bytes"));
	fmt_ctable_add(t, fmt_count(sum, "num_omap_bytes"));
	fmt_ctable_add(t, fmt_count(sum, "num_omap_keys"));
	fmt_ctable_add(t, fmt_count(st, "log_size"));
	fmt_ctable_add(t, fmt_count(st, "ondisk_log_size"));
}

static const char *const fmt_pool_heads[] = { "POOLID", "OBJECTS",
	"MISSING_ON_PRIMARY", "DEGRADED", "MISPLACED", "UNFOUND", "BYTES",
	"OMAP_BYTES*", "OMAP_KEYS*", "LOG", "DISK_LOG" };

/* Ceph's dump_pool_stats(): with its headings or a line of blanks. */
static void
fmt_pg_pools(FILE *f, const json_t *pools, int header)
{
	struct fmt_ctable t = { nitems(fmt_pool_heads),
		header ? fmt_pool_heads : NULL, "LLLLLLLLLLL", "LRRRRRRRRRR",
		NULL, 0, 0 };
	json_t *p;
	size_t i;

	json_array_foreach(pools, i, p) {
		fmt_ctable_add(&t, fmt_count(p, "poolid"));
		fmt_pool_cells(&t, p);
	}
	fmt_ctable_print(f, &t);
}

/* Ceph's dump_pg_sum_stats(): the "sum" row. */
static void
fmt_pg_sum(FILE *f, const json_t *sum, int header)
{
	static const char *const heads[] = { "PG_STAT", "OBJECTS",
		"MISSING_ON_PRIMARY", "DEGRADED", "MISPLACED", "UNFOUND",
		"BYTES", "OMAP_BYTES*", "OMAP_KEYS*", "LOG", "DISK_LOG" };
	struct fmt_ctable t = { nitems(heads), header ? heads : NULL,
		"LLLLLLLLLLL", "LRRRRRRRRRR", NULL, 0, 0 };

	fmt_ctable_add(&t, xstrdup("sum"));
	fmt_pool_cells(&t, sum);
	fmt_ctable_print(f, &t);
}

/* One OSD's or the sum's byte cells of the OSD table. */
static void
fmt_osd_bytes(struct fmt_ctable *t, const json_t *o)
{
	const json_t *st = json_object_get(o, "statfs");
	json_int_t total = fmt_int(st, "total"),
		   avail = fmt_int(st, "available");

	fmt_ctable_add(t, fmt_bytes(fmt_int(st, "allocated")));
	fmt_ctable_add(t, fmt_bytes(avail));
	fmt_ctable_add(t, fmt_bytes(total - avail));
	fmt_ctable_add(t, fmt_bytes(total));
}

/*
 * Ceph's dump_osd_stats() (each OSD and the sum) or dump_osd_sum_stats()
 * (the sum alone).  mapmon has no heartbeat peers to list.
 */
static void
fmt_pg_osds(FILE *f, const json_t *osds, const json_t *sum)
{
	static const char *const heads[] = { "OSD_STAT", "USED", "AVAIL",
		"USED_RAW", "TOTAL", "HB_PEERS", "PG_SUM", "PRIMARY_PG_SUM" };
	struct fmt_ctable t = { osds != NULL ? nitems(heads) : 5, heads,
		"LLLLLLLL", "LRRRRRRR", NULL, 0, 0 };
	json_int_t total = 0, avail = 0, used = 0;
	const json_t *st;
	json_t *o, *s;
	size_t i;

	json_array_foreach(osds, i, o) {
		fmt_ctable_add(&t, fmt_count(o, "osd"));
		fmt_osd_bytes(&t, o);
		fmt_ctable_add(&t, xstrdup(""));
		fmt_ctable_add(&t, fmt_count(o, "num_pgs"));
		fmt_ctable_add(&t, fmt_count(o, "num_primary_pgs"));
		st = json_object_get(o, "statfs");
		total += fmt_int(st, "total");
		avail += fmt_int(st, "available");
		used += fmt_int(st, "allocated");
	}
	fmt_ctable_add(&t, xstrdup("sum"));
	if (sum != NULL)
		fmt_osd_bytes(&t, sum);
	else {
		s = json_pack("{s:{s:I, s:I, s:I}}", "statfs", "total", total,
		    "available", avail, "allocated", used);
		fmt_osd_bytes(&t, s);
		json_decref(s);
	}
	for (i = 5; i < t.ncols; i++)
		fmt_ctable_add(&t, xstrdup(""));
	fmt_ctable_print(f, &t);
}

/* Which parts `pg dump' was asked for (none: all). */
static int
fmt_dump_wants(const json_t *cmd, const char *part)
{
	json_t *a = json_object_get(cmd, "dumpcontents"), *v;
	size_t i;

	if (json_array_size(a) == 0)
		return strcmp(part, "all") == 0;
	json_array_foreach(a, i, v)
		if (json_is_string(v) &&
		    strcmp(json_string_value(v), part) == 0)
			return 1;
	return 0;
}

/* `pg dump': Ceph's process_pg_map_command(), plain. */
static void
fmt_pg_dump(FILE *f, const json_t *cmd, const json_t *d)
{
	const json_t *map = json_object_get(d, "pg_map");
	int note = 0, header = 1;

	if (map != NULL) {
		fprintf(f, "version %" JSON_INTEGER_FORMAT "\n",
		    fmt_int(map, "version"));
		fprintf(f, "stamp %s\n", fmt_str(map, "stamp"));
		fprintf(f, "last_osdmap_epoch %" JSON_INTEGER_FORMAT "\n",
		    fmt_int(map, "last_osdmap_epoch"));
		fprintf(f, "last_pg_scan %" JSON_INTEGER_FORMAT "\n",
		    fmt_int(map, "last_pg_scan"));
		if (json_object_get(map, "pg_stats") != NULL) {
			fmt_pg_full(f, json_object_get(map, "pg_stats"));
			fmt_pg_pools(f, json_object_get(map, "pool_stats"), 0);
			fmt_pg_sum(f, json_object_get(map, "pg_stats_sum"), 0);
			fmt_pg_osds(f, json_object_get(map, "osd_stats"),
			    json_object_get(map, "osd_stats_sum"));
		} else {
			fmt_pg_sum(f, json_object_get(map, "pg_stats_sum"), 1);
			fmt_pg_osds(f, NULL,
			    json_object_get(map, "osd_stats_sum"));
		}
		fmt_omap_note(f);
		return;
	}
	if (fmt_dump_wants(cmd, "pgs_brief") && !fmt_dump_wants(cmd, "pgs"))
		fmt_pg_brief(f, json_object_get(d, "pg_stats"));
	if (fmt_dump_wants(cmd, "pgs")) {
		fmt_pg_full(f, json_object_get(d, "pg_stats"));
		header = 0;
		note = 1;
	}
	if (json_object_get(d, "pool_stats") != NULL) {
		fmt_pg_pools(f, json_object_get(d, "pool_stats"), header);
		note = 1;
	}
	if (json_object_get(d, "osd_stats") != NULL)
		fmt_pg_osds(f, json_object_get(d, "osd_stats"), NULL);
	if (note)
		fmt_omap_note(f);
}

void
mapmon_fmt_pg_map(FILE *f, const json_t *d)
{
	char *up, *acting;

	up = fmt_id_list(json_object_get(d, "up"));
	acting = fmt_id_list(json_object_get(d, "acting"));
	fprintf(f,
	    "osdmap e%" JSON_INTEGER_FORMAT " pg %s (%s) -> up %s "
	    "acting %s\n",
	    fmt_int(d, "epoch"),
	    *fmt_str(d, "raw_pgid") ? fmt_str(d, "raw_pgid") :
				      fmt_str(d, "pgid"),
	    fmt_str(d, "pgid"), up, acting);
	free(up);
	free(acting);
}

void
mapmon_fmt_log_entry(FILE *f, const json_t *e, const char *who)
{
	const char *name = fmt_str(e, "name"), *prio = fmt_str(e, "priority");
	char sev[16];

	if (*name == '\0')
		name = fmt_str(e, "who");
	if (*name == '\0')
		name = who;
	if (*prio == '\0') {
		snprintf(sev, sizeof sev, "[%s]", fmt_str(e, "severity"));
		prio = sev;
	}
	/* Ceph's operator<<(LogEntry): "STAMP mon.a (mon.0) 109 : cluster". */
	fprintf(f, "%s %s (%s) %" JSON_INTEGER_FORMAT " : %s %s %s\n",
	    fmt_str(e, "stamp"), name,
	    *fmt_str(e, "rank") ? fmt_str(e, "rank") : "mon.0",
	    fmt_int(e, "seq"),
	    *fmt_str(e, "channel") ? fmt_str(e, "channel") : "cluster", prio,
	    fmt_str(e, "message"));
}

static void
fmt_mon_dump(FILE *f, const json_t *d)
{
	json_t *m;
	size_t i;

	fprintf(f, "epoch %" JSON_INTEGER_FORMAT "\n", fmt_int(d, "epoch"));
	fprintf(f, "fsid %s\n", fmt_str(d, "fsid"));
	fprintf(f, "last_changed %s\n", fmt_str(d, "modified"));
	fprintf(f, "created %s\n", fmt_str(d, "created"));
	json_array_foreach(json_object_get(d, "mons"), i, m)
		fprintf(f, "%zu: %s mon.%s\n", i, fmt_str(m, "addr"),
		    fmt_str(m, "name"));
}

static void
fmt_mon_stat(FILE *f, const json_t *d)
{
	json_t *mons = json_object_get(d, "mons"), *m;
	json_t *quorum = json_object_get(d, "quorum");
	const char *leader = fmt_str(d, "leader");
	json_int_t lrank = 0;
	size_t i;

	fprintf(f, "e%" JSON_INTEGER_FORMAT ": %zu mons at {",
	    fmt_int(d, "epoch"), json_array_size(mons));
	json_array_foreach(mons, i, m) {
		fprintf(f, "%s%s=%s", i ? "," : "", fmt_str(m, "name"),
		    fmt_str(m, "addr"));
		if (strcmp(fmt_str(m, "name"), leader) == 0)
			lrank = (json_int_t)i;
	}
	/*
	 * Ceph's: "}, election epoch 3, leader 0 a, quorum 0,1,2 a,b,c":
	 * the ranks, then the names, of the monitors in quorum.
	 */
	fprintf(f,
	    "}, election epoch %" JSON_INTEGER_FORMAT
	    ", leader %" JSON_INTEGER_FORMAT " %s, quorum",
	    json_object_get(d, "election_epoch") ?
		fmt_int(d, "election_epoch") :
		1,
	    lrank, leader);
	json_array_foreach(quorum, i, m)
		fprintf(f, "%s%" JSON_INTEGER_FORMAT, i ? "," : " ",
		    fmt_int(m, "rank"));
	json_array_foreach(quorum, i, m)
		fprintf(f, "%s%s", i ? "," : " ", fmt_str(m, "name"));
	fprintf(f, "\n");
}

/*
 * `config dump` (a list) and `config get WHO` (an object by option name):
 * Ceph's TextTable of ConfigMonitor, WHO indented by its kind in the dump
 * (indent_who()), every column padded.
 */
static void
fmt_config_table(FILE *f, const json_t *d)
{
	static const char *const heads[] = { "WHO", "MASK", "LEVEL", "OPTION",
		"VALUE", "RO" };
	static const int right[] = { 0, 0, 0, 0, 0, 0 };
	struct fmt_table t = { nitems(heads), heads, right, NULL, 0, 1, 0 };
	const char *name, *who;
	json_t *e;
	size_t i;
	char *s;

	json_array_foreach(d, i, e) {
		who = fmt_str(e, "section");
		xasprintf(&s, "%s%s",
		    strcmp(who, "global") == 0	 ? "" :
			strchr(who, '.') == NULL ? "  " :
						   "    ",
		    who);
		fmt_table_add(&t, s);
		fmt_table_add(&t, xstrdup(fmt_str(e, "mask")));
		fmt_table_add(&t, xstrdup(fmt_str(e, "level")));
		fmt_table_add(&t, xstrdup(fmt_str(e, "name")));
		fmt_table_add(&t, xstrdup(fmt_str(e, "value")));
		fmt_table_add(&t,
		    xstrdup(json_is_false(
				json_object_get(e, "can_update_at_runtime")) ?
			    "*" :
			    ""));
	}
	if (json_is_object(d))
		json_object_foreach((json_t *)d, name, e) {
			fmt_table_add(&t, xstrdup(fmt_str(e, "section")));
			fmt_table_add(&t, xstrdup(fmt_str(e, "mask")));
			fmt_table_add(&t, xstrdup(fmt_str(e, "level")));
			fmt_table_add(&t, xstrdup(name));
			fmt_table_add(&t, xstrdup(fmt_str(e, "value")));
			fmt_table_add(&t,
			    xstrdup(json_is_false(json_object_get(e,
					"can_update_at_runtime")) ?
				    "*" :
				    ""));
		}
	fmt_table_print(f, &t);
}

/* `config show`: "section.key = value" lines, from an object or a list. */
static void
fmt_config_show(FILE *f, const json_t *d)
{
	const char *key;
	json_t *v;
	size_t i;
	char *text;

	if (json_is_array(d)) {
		json_array_foreach(d, i, v) {
			text = fmt_member(v, "value");
			fprintf(f, "%s = %s\n", fmt_str(v, "name"), text);
			free(text);
		}
		return;
	}
	json_object_foreach((json_t *)d, key, v) {
		text = json_is_object(v) ? fmt_member(v, "value") :
		    fmt_scalar(v);
		fprintf(f, "%s = %s\n", key, text);
		free(text);
	}
}

int
mapmon_fmt_data_for_stdout(const char *prefix)
{
	/* The keyrings and keys of the auth commands, as ceph prints them. */
	if (strncmp(prefix, "auth ", 5) == 0)
		return 1;
	return strcmp(prefix, "osd create") == 0;
}

int
mapmon_fmt_status_to_stderr(const char *prefix)
{
	return strcmp(prefix, "osd getmap") == 0 ||
	    strcmp(prefix, "pg dump") == 0 ||
	    strcmp(prefix, "pg dump_stuck") == 0;
}

static void
fmt_json(FILE *f, const json_t *data)
{
	char *s;

	s = json_dumps(data, JSON_INDENT(4) | JSON_ENCODE_ANY);
	if (s != NULL)
		fprintf(f, "%s\n", s);
	free(s);
}

/*
 * The auth commands, in Ceph's plain forms: a keyring file for get,
 * get-or-create and rotate (so that `> FILE' makes a keyring), the bare
 * key for get-key, and `auth ls''s indented list.  0 for another prefix.
 */
static int
fmt_auth(FILE *f, const char *prefix, const json_t *data)
{
	const char *svc;
	json_t *e, *cap, *list;
	size_t i;

	if (strcmp(prefix, "auth get-key") == 0) {
		fprintf(f, "%s\n", fmt_str(data, "key"));
		return 1;
	}
	if (strcmp(prefix, "auth ls") == 0) {
		list = json_object_get(data, "auth_dump");
		json_array_foreach(list, i, e) {
			fprintf(f, "%s\n\tkey: %s\n", fmt_str(e, "entity"),
			    fmt_str(e, "key"));
			json_object_foreach(json_object_get(e, "caps"), svc,
			    cap)
				fprintf(f, "\tcaps: [%s] %s\n", svc,
				    json_string_value(cap) ?
					json_string_value(cap) :
					"");
		}
		return 1;
	}
	if (strcmp(prefix, "auth get") != 0 &&
	    strcmp(prefix, "auth get-or-create") != 0 &&
	    strcmp(prefix, "auth rotate") != 0)
		return 0;
	json_array_foreach(data, i, e) {
		fprintf(f, "[%s]\n\tkey = %s\n", fmt_str(e, "entity"),
		    fmt_str(e, "key"));
		json_object_foreach(json_object_get(e, "caps"), svc, cap)
			fprintf(f, "\tcaps %s = \"%s\"\n", svc,
			    json_string_value(cap) ? json_string_value(cap) :
						     "");
	}
	return 1;
}

void
mapmon_fmt_plain(FILE *f, const char *prefix, const json_t *cmd,
    const json_t *data)
{
	static const char *const pool_get_skip[] = { "pool", "pool_id",
	    "pool_name", NULL };
	json_t *e;
	char *text;
	size_t i;

	if (data == NULL || json_is_null(data))
		return;
	if (strncmp(prefix, "auth ", 5) == 0 && fmt_auth(f, prefix, data))
		return;
	if (strcmp(prefix, "status") == 0)
		fmt_status(f, data);
	else if (strcmp(prefix, "health") == 0) {
		if (json_object_get(cmd, "detail") != NULL)
			fmt_health_detail(f, data);
		else
			mapmon_fmt_health_line(f, data);
	} else if (strcmp(prefix, "osd tree") == 0)
		fmt_osd_tree(f, data, 1);
	else if (strcmp(prefix, "osd crush tree") == 0)
		fmt_osd_tree(f, data, 0);
	else if (strcmp(prefix, "osd map") == 0)
		fmt_osd_map(f, data);
	else if (strcmp(prefix, "osd crush rule ls") == 0) {
		json_array_foreach(data, i, e)
			fprintf(f, "%s\n", json_string_value(e));
	} else if (strcmp(prefix, "osd dump") == 0)
		fmt_osd_dump(f, data);
	else if (strcmp(prefix, "osd ls") == 0)
		fmt_osd_ls(f, data);
	else if (strcmp(prefix, "fsid") == 0)
		fprintf(f, "%s\n", fmt_str(data, "fsid"));
	else if (strcmp(prefix, "osd stat") == 0)
		fmt_osd_stat(f, data);
	else if (strcmp(prefix, "df") == 0)
		fmt_df(f, data);
	else if (strcmp(prefix, "osd df") == 0)
		fmt_osd_df(f, data);
	else if (strcmp(prefix, "osd create") == 0)
		fprintf(f, "%" JSON_INTEGER_FORMAT "\n", fmt_int(data,
		    "osdid"));
	else if (strcmp(prefix, "osd pool ls") == 0)
		fmt_pool_ls(f, data);
	else if (strcmp(prefix, "osd pool get") == 0)
		fmt_key_values(f, data, pool_get_skip);
	else if (strcmp(prefix, "pg stat") == 0)
		fmt_pg_stat(f, data);
	else if (strcmp(prefix, "pg dump") == 0)
		fmt_pg_dump(f, cmd, data);
	else if (strncmp(prefix, "pg ls", 5) == 0)
		fmt_pg_ls(f, json_object_get(data, "pg_stats"));
	else if (strcmp(prefix, "pg dump_stuck") == 0) {
		/* Nothing stuck: nothing but Ceph's status, "ok". */
		if (json_array_size(json_object_get(data, "stuck_pg_stats")))
			fmt_pg_brief(f,
			    json_object_get(data, "stuck_pg_stats"));
	} else if (strcmp(prefix, "pg map") == 0)
		mapmon_fmt_pg_map(f, data);
	else if (strcmp(prefix, "log last") == 0) {
		json_array_foreach(data, i, e)
			mapmon_fmt_log_entry(f, e, "mon");
	} else if (strcmp(prefix, "config get") == 0 &&
	    json_object_get(data, "value") == NULL)
		fmt_config_table(f, data);
	else if (strcmp(prefix, "config get") == 0) {
		text = fmt_member(data, "value");
		fprintf(f, "%s\n", text);
		free(text);
	} else if (strcmp(prefix, "config dump") == 0)
		fmt_config_table(f, data);
	else if (strcmp(prefix, "config show") == 0)
		fmt_config_show(f, data);
	else if (strcmp(prefix, "version") == 0 &&
	    json_object_get(data, "version") != NULL)
		fprintf(f, "%s\n", fmt_str(data, "version"));
	else if (strcmp(prefix, "mon dump") == 0)
		fmt_mon_dump(f, data);
	else if (strcmp(prefix, "mon stat") == 0)
		fmt_mon_stat(f, data);
	else
		fmt_json(f, data);
}
