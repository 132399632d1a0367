/*
 * test_cli_args.c: the CLI's command table and word parsing, over a
 * descriptions file shaped like the monitor's get_command_descriptions
 * (test/unit/cli_descriptions.json, the commands of the table contract).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "common/mapmon.h"
#include "tools/cli_args.h"

static struct cli_table *table;

static void
load_table(void)
{
	const char *srcdir = getenv("top_srcdir");
	json_error_t err;
	json_t *j;
	char *path, *cause = NULL;

	xasprintf(&path, "%s/test/unit/cli_descriptions.json",
	    srcdir != NULL ? srcdir : ".");
	j = json_load_file(path, 0, &err);
	cr_assert_not_null(j, "%s: %s", path, err.text);
	table = cli_table_from_json(j, &cause);
	cr_assert_not_null(table, "%s", cause);
	json_decref(j);
	free(path);
}

static void
free_table(void)
{
	cli_table_free(table);
	table = NULL;
}

TestSuite(cli_args, .init = load_table, .fini = free_table);

/*
 * Parse a command line given as one string (words split on blanks).
 * Returns the compact JSON the CLI would send (caller frees), or NULL with
 * *cause set; *prefix (may be NULL) gets the matched prefix.
 */
static char *
parse(const char *line, char **cause, const char **prefix)
{
	const struct cli_cmd *c;
	char *copy, *w, *save = NULL, *words[32], *s;
	size_t n = 0, used;
	json_t *obj;

	*cause = NULL;
	copy = xstrdup(line);
	for (w = strtok_r(copy, " ", &save); w != NULL && n < 32;
	    w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	c = cli_table_match(table, words, n, &used);
	if (prefix != NULL)
		*prefix = c != NULL ? c->prefix : NULL;
	if (c == NULL) {
		xasprintf(cause, "no match");
		free(copy);
		return NULL;
	}
	obj = cli_args_build(c, words + used, n - used, cause);
	free(copy);
	if (obj == NULL)
		return NULL;
	s = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(obj);
	return s;
}

static void
expect(const char *line, const char *json)
{
	char *cause, *s;

	s = parse(line, &cause, NULL);
	cr_assert_not_null(s, "'%s': %s", line, cause);
	cr_expect_str_eq(s, json, "'%s'", line);
	free(s);
}

static void
expect_error(const char *line, const char *message)
{
	char *cause, *s;

	s = parse(line, &cause, NULL);
	cr_expect_null(s, "'%s' parsed as %s", line, s);
	cr_assert_not_null(cause);
	cr_expect(strstr(cause, message) != NULL, "'%s': '%s' lacks '%s'",
	    line, cause, message);
	free(s);
	free(cause);
}

Test(cli_args, table_loaded_sorted)
{
	size_t i;

	cr_assert_eq(table->ncmds, 42);
	for (i = 1; i < table->ncmds; i++)
		cr_expect(strcmp(table->cmds[i - 1].prefix,
		    table->cmds[i].prefix) < 0);
	cr_assert_not_null(cli_table_find(table, "osd pool create"));
	cr_assert_null(cli_table_find(table, "osd pool"));
	cr_expect(cli_table_find(table, "subscribe")->flags & CLI_CMD_HIDDEN);
	cr_expect(cli_table_find(table, "config set")->flags & CLI_CMD_ADMIN);
}

Test(cli_args, longest_prefix_wins)
{
	const char *prefix;
	char *cause, *s;

	/* "osd pool ls" over "osd" commands, "pg dump_stuck" over "pg dump". */
	s = parse("osd pool ls detail", &cause, &prefix);
	cr_assert_str_eq(prefix, "osd pool ls");
	free(s);
	s = parse("pg dump_stuck stale", &cause, &prefix);
	cr_assert_str_eq(prefix, "pg dump_stuck");
	free(s);
	s = parse("pg dump pgs", &cause, &prefix);
	cr_assert_str_eq(prefix, "pg dump");
	free(s);
	s = parse("osd frobnicate", &cause, &prefix);
	cr_assert_null(prefix);
	free(cause);
}

Test(cli_args, no_arguments)
{
	expect("status", "{\"prefix\":\"status\"}");
	expect("osd tree", "{\"prefix\":\"osd tree\"}");
	expect_error("status now", "unexpected argument 'now'");
}

Test(cli_args, ints_and_bounds)
{
	expect("osd create", "{\"prefix\":\"osd create\"}");
	expect("osd create 7", "{\"id\":7,\"prefix\":\"osd create\"}");
	expect_error("osd create seven", "ID: 'seven' is not an integer");
	expect_error("osd create 65536", "ID: 65536 is out of range 0..65535");
	expect_error("osd create -1", "out of range");
	expect_error("osd create 3x", "not an integer");
	expect("osd pool create rbd 128",
	    "{\"pg_num\":128,\"pool\":\"rbd\",\"prefix\":\"osd pool create\"}");
	expect_error("osd pool create", "missing argument POOL");
	expect_error("osd create 65536 7", "ID: 65536 is out of range");
}

/*
 * Ceph's `osd pool create NAME [PG_NUM [PGP_NUM]] [replicated] [RULE]
 * [--size N]' (MonCommands.h): the third word is PGP_NUM, never a size;
 * an optional argument a word is not of is passed over, as Ceph's
 * validate_command() does.
 */
Test(cli_args, pool_create_in_cephs_order)
{
	expect("osd pool create rbd",
	    "{\"pool\":\"rbd\",\"prefix\":\"osd pool create\"}");
	expect("osd pool create rbd 8 8",
	    "{\"pg_num\":8,\"pgp_num\":8,"
	    "\"pool\":\"rbd\",\"prefix\":\"osd pool create\"}");
	expect("osd pool create rbd 8 8 replicated replicated_rule --size 2",
	    "{\"pg_num\":8,\"pgp_num\":8,\"pool\":\"rbd\",\"pool_type\":"
	    "\"replicated\",\"prefix\":\"osd pool create\",\"rule\":"
	    "\"replicated_rule\",\"size\":2}");
	expect("osd pool create rbd replicated",
	    "{\"pool\":\"rbd\","
	    "\"pool_type\":\"replicated\",\"prefix\":\"osd pool create\"}");
	expect("osd pool create rbd 16 replicated_rule",
	    "{\"pg_num\":16,"
	    "\"pool\":\"rbd\",\"prefix\":\"osd pool create\",\"rule\":"
	    "\"replicated_rule\"}");
	/* The old SIZE form: 3 is a rule name, which the monitor refuses. */
	expect("osd pool create rbd 8 8 3",
	    "{\"pg_num\":8,\"pgp_num\":8,"
	    "\"pool\":\"rbd\",\"prefix\":\"osd pool create\",\"rule\":"
	    "\"3\"}");
	expect("osd pool create --size=3 rbd 8",
	    "{\"pg_num\":8,\"pool\":"
	    "\"rbd\",\"prefix\":\"osd pool create\",\"size\":3}");
	expect_error("osd pool create rbd 8 8 replicated replicated_rule x",
	    "unexpected argument 'x'");
	/* What the leftover word is told is about that word. */
	expect_error("osd pool create rbd x 8", "unexpected argument '8'");
	expect_error("osd pool create rbd --size three",
	    "SIZE: 'three' is not an integer");
}

/* Ceph's CephOsdName and its any|all (MonCommands.h's osd down). */
Test(cli_args, osd_ids_as_ceph_takes_them)
{
	expect("osd down osd.1 2", "{\"ids\":[1,2],\"prefix\":\"osd down\"}");
	expect("osd out any", "{\"ids\":[\"any\"],\"prefix\":\"osd out\"}");
	expect("osd in all", "{\"ids\":[\"all\"],\"prefix\":\"osd in\"}");
	expect("osd rm 3", "{\"ids\":[3],\"prefix\":\"osd rm\"}");
	expect("osd reweight osd.3 0.5",
	    "{\"id\":3,\"prefix\":"
	    "\"osd reweight\",\"weight\":0.5}");
	expect("osd boot osd.2", "{\"id\":2,\"prefix\":\"osd boot\"}");
	expect_error("osd down 1 any",
	    "IDS: 'any' is not an OSD id (N or "
	    "osd.N)");
	expect_error("osd down osd.x", "IDS: 'osd.x' is not an OSD id");
	expect_error("osd reweight osd. 0.5", "is not an OSD id");
	cr_expect_str_eq(cli_table_find(table, "osd rm")->usage,
	    "osd rm IDS...|any|all|*");
}

/* `osd tree [EPOCH] [up|down|in|out...]': a word skips the epoch. */
Test(cli_args, osd_tree_states_and_epoch)
{
	expect("osd tree down",
	    "{\"prefix\":\"osd tree\",\"states\":"
	    "[\"down\"]}");
	expect("osd tree 7 up in",
	    "{\"epoch\":7,\"prefix\":\"osd tree\","
	    "\"states\":[\"up\",\"in\"]}");
	expect("osd tree 7", "{\"epoch\":7,\"prefix\":\"osd tree\"}");
	expect_error("osd tree sideways",
	    "STATES: 'sideways' is not one of "
	    "up, down, in or out");
	expect_error("osd tree up sideways",
	    "STATES: 'sideways' is not one "
	    "of");
}

Test(cli_args, floats)
{
	char *cause, *s;
	json_t *j;

	s = parse("osd reweight 3 0.5", &cause, NULL);
	cr_assert_not_null(s, "%s", cause);
	j = json_loads(s, 0, NULL);
	cr_assert(json_is_real(json_object_get(j, "weight")));
	cr_assert_float_eq(json_real_value(json_object_get(j, "weight")), 0.5,
	    1e-9);
	cr_assert_eq(json_integer_value(json_object_get(j, "id")), 3);
	json_decref(j);
	free(s);
	expect_error("osd reweight 3 1.5", "WEIGHT: 1.5 is out of range 0..1");
	expect_error("osd reweight 3 half", "WEIGHT: 'half' is not a number");
	expect_error("osd reweight 3 nan", "not a number");
	expect_error("osd reweight 3", "missing argument WEIGHT");
}

Test(cli_args, rest_of_words)
{
	expect("osd down 1 2 3", "{\"ids\":[1,2,3],\"prefix\":\"osd down\"}");
	expect("osd out 4", "{\"ids\":[4],\"prefix\":\"osd out\"}");
	expect_error("osd down", "missing argument IDS");
	expect_error("osd down 1 x", "IDS: 'x' is not an OSD id");
	expect_error("osd down 1 70000", "IDS: 70000 is out of range");
	expect("pg ls", "{\"prefix\":\"pg ls\"}");
	expect("pg ls active clean",
	    "{\"prefix\":\"pg ls\",\"states\":[\"active\",\"clean\"]}");
}

Test(cli_args, options_anywhere)
{
	const char *want = "{\"poolstr\":\"rbd\",\"prefix\":\"pg ls\","
			   "\"states\":[\"active\"]}";

	expect("pg ls --pool rbd active", want);
	expect("pg ls active --pool rbd", want);
	expect("pg ls --pool=rbd active", want);
	expect("pg ls --pool rbd",
	    "{\"poolstr\":\"rbd\",\"prefix\":\"pg ls\"}");
	expect_error("pg ls --pool", "--pool needs a value");
	expect_error("pg ls --pool a --pool b", "--pool given twice");
	expect_error("pg ls --color", "unknown option '--color'");
	/* After "--" a word is positional even when it looks like an option. */
	expect("pg ls -- --pool",
	    "{\"prefix\":\"pg ls\",\"states\":[\"--pool\"]}");
}

Test(cli_args, flags)
{
	expect("osd pool delete rbd rbd --yes-i-really-really-mean-it",
	    "{\"pool\":\"rbd\",\"pool2\":\"rbd\",\"prefix\":\"osd pool "
	    "delete\",\"yes_i_really_really_mean_it\":true}");
	expect("osd pool delete --yes-i-really-really-mean-it rbd rbd",
	    "{\"pool\":\"rbd\",\"pool2\":\"rbd\",\"prefix\":\"osd pool "
	    "delete\",\"yes_i_really_really_mean_it\":true}");
	/* Without the flag the monitor refuses it (EPERM), not the CLI. */
	expect("osd pool delete rbd",
	    "{\"pool\":\"rbd\",\"prefix\":\"osd pool delete\"}");
	expect_error("osd pool delete rbd --yes-i-really-really-mean-it=1",
	    "unknown option");
}

Test(cli_args, choices)
{
	expect("osd set noout", "{\"key\":\"noout\",\"prefix\":\"osd set\"}");
	expect_error("osd set nofun",
	    "KEY: 'nofun' is not one of noout, noup, nodown, noin or pause");
	expect("health", "{\"prefix\":\"health\"}");
	expect("health detail",
	    "{\"detail\":\"detail\",\"prefix\":\"health\"}");
	expect_error("health verbose",
	    "DETAIL: 'verbose' is not one of detail");
	/* Ceph's val is a string (CephString), whatever the variable. */
	expect("osd pool set rbd size 2",
	    "{\"pool\":\"rbd\",\"prefix\":\"osd pool set\",\"val\":\"2\","
	    "\"var\":\"size\"}");
	expect("osd pool set rbd size 1 --yes-i-really-mean-it",
	    "{\"pool\":\"rbd\",\"prefix\":\"osd pool set\",\"val\":\"1\","
	    "\"var\":\"size\",\"yes_i_really_mean_it\":true}");
	expect("osd pool set rbd crush_rule replicated_rule",
	    "{\"pool\":\"rbd\",\"prefix\":\"osd pool set\",\"val\":"
	    "\"replicated_rule\",\"var\":\"crush_rule\"}");
	expect_error("osd pool set rbd color 2",
	    "VAR: 'color' is not one of "
	    "size, min_size, pg_num, pgp_num or crush_rule");
}

Test(cli_args, json_args_have_no_cli_form)
{
	expect_error("pg report 1 x", "pgs has no command-line form");
}

/*
 * Usage lines are made from the arguments, whatever the table's "usage"
 * says, so that they name the arguments as the messages do ("missing
 * argument PG_NUM" beside "osd pool create POOL PG_NUM").
 */
Test(cli_args, usage_lines)
{
	cr_expect_str_eq(cli_table_find(table, "osd pool create")->usage,
	    "osd pool create POOL [PG_NUM] [PGP_NUM] [replicated|erasure] "
	    "[RULE] [--size SIZE]");
	cr_expect_str_eq(cli_table_find(table, "osd tree")->usage,
	    "osd tree [EPOCH] [up|down|in|out...]");
	/* Ceph's "osd down <ids>... | any|all". */
	cr_expect_str_eq(cli_table_find(table, "osd down")->usage,
	    "osd down IDS...|any|all|*");
	cr_expect_str_eq(cli_table_find(table, "pg ls-by-osd")->usage,
	    "pg ls-by-osd OSD [POOL] [STATES...]");
	cr_expect_str_eq(cli_table_find(table, "osd unset")->usage,
	    "osd unset noout|noup|nodown|noin|pause");
	/* As Ceph's "pg dump_stuck [inactive|unclean|...] [<threshold:int>]". */
	cr_expect_str_eq(cli_table_find(table, "pg dump_stuck")->usage,
	    "pg dump_stuck [inactive|unclean|stale|undersized|degraded...] "
	    "[THRESHOLD]");
	cr_expect_str_eq(cli_table_find(table, "pg ls")->usage,
	    "pg ls [POOL] [STATES...] [--pool POOLSTR]");
}

Test(cli_args, made_usage_brackets_each_optional)
{
	json_t *j;
	struct cli_table *t;
	char *cause = NULL;

	j = json_loads("{\"commands\":[{\"prefix\":\"a b\",\"args\":["
	    "{\"name\":\"x\",\"type\":\"string\",\"required\":true},"
	    "{\"name\":\"y\",\"type\":\"int\"},"
	    "{\"name\":\"z\",\"type\":\"strings\"},"
	    "{\"name\":\"p\",\"type\":\"string\",\"option\":\"--p\"},"
	    "{\"name\":\"f\",\"type\":\"flag\",\"option\":\"--force\"}]}]}",
	    0, NULL);
	cr_assert_not_null(j);
	t = cli_table_from_json(j, &cause);
	cr_assert_not_null(t, "%s", cause);
	cr_expect_str_eq(t->cmds[0].usage,
	    "a b X [Y] [Z...] [--p P] [--force]");
	cli_table_free(t);
	json_decref(j);
}

Test(cli_args, bad_tables_are_refused)
{
	static const char *const bad[] = {
		"{}",
		"{\"commands\":{}}",
		"{\"commands\":[{\"args\":[]}]}",
		"{\"commands\":[{\"prefix\":\"\"}]}",
		"{\"commands\":[{\"prefix\":\"a\",\"args\":{}}]}",
		"{\"commands\":[{\"prefix\":\"a\",\"args\":[{\"name\":\"x\","
		    "\"type\":\"complex\"}]}]}",
		"{\"commands\":[{\"prefix\":\"a\",\"args\":[{\"name\":\"x\","
		    "\"type\":\"choice\"}]}]}",
		"{\"commands\":[{\"prefix\":\"a\",\"args\":[{\"name\":\"x\","
		    "\"type\":\"flag\"}]}]}",
		"{\"commands\":[{\"prefix\":\"a\",\"args\":[{\"name\":\"x\","
		    "\"type\":\"int\",\"min\":\"0\"}]}]}",
	};
	struct cli_table *t;
	json_t *j;
	char *cause;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		j = json_loads(bad[i], 0, NULL);
		cr_assert_not_null(j, "%s", bad[i]);
		cause = NULL;
		t = cli_table_from_json(j, &cause);
		cr_expect_null(t, "accepted %s", bad[i]);
		cr_expect_not_null(cause, "%s", bad[i]);
		cli_table_free(t);
		free(cause);
		json_decref(j);
	}
}

Test(cli_args, continuations_and_help)
{
	char *w[] = { "osd", "pool" };
	char buf[8192];
	FILE *f;
	size_t n;

	cr_expect_eq(cli_table_continuations(table, w, 2), 6);
	cr_expect_eq(cli_table_continuations(table, w, 1), 18);
	cr_expect_eq(cli_table_continuations(table, NULL, 0), 39);
	f = fmemopen(buf, sizeof buf, "w");
	cr_assert_not_null(f);
	n = cli_table_print_help(table, f, w, 2);
	fclose(f);
	cr_expect_eq(n, 6);
	cr_expect(strstr(buf,
		      "  osd pool create POOL [PG_NUM] [PGP_NUM] "
		      "[replicated|erasure] [RULE] [--size SIZE]\n"
		      "\tcreate a pool\n") != NULL,
	    "%s", buf);
	cr_expect(strstr(buf, "osd tree") == NULL);
	/* Hidden commands are not listed. */
	f = fmemopen(buf, sizeof buf, "w");
	n = cli_table_print_help(table, f, NULL, 0);
	fclose(f);
	cr_expect_eq(n, 39);
	cr_expect(strstr(buf, "subscribe") == NULL);
	cr_expect(strstr(buf, "pg report") == NULL);
}

/*
 * As Ceph's argparse: an optional positional that a word does not fit is
 * passed over, the word going to the next ("pg ls [<pool:int>]
 * [<states>...]": `pg ls active' lists every pool's active PGs); a list of
 * choices ends at the first word that is none of them.
 */
Test(cli_args, optional_positionals_are_passed_over)
{
	expect("pg ls 1 active",
	    "{\"pool\":1,\"prefix\":\"pg ls\",\"states\":[\"active\"]}");
	expect("pg ls active",
	    "{\"prefix\":\"pg ls\",\"states\":[\"active\"]}");
	expect("pg ls 2", "{\"pool\":2,\"prefix\":\"pg ls\"}");
	expect("pg dump_stuck stale 100",
	    "{\"prefix\":\"pg dump_stuck\",\"stuckops\":[\"stale\"],"
	    "\"threshold\":100}");
	expect("pg dump_stuck undersized degraded",
	    "{\"prefix\":\"pg dump_stuck\",\"stuckops\":[\"undersized\","
	    "\"degraded\"]}");
	expect("pg dump_stuck 30",
	    "{\"prefix\":\"pg dump_stuck\",\"threshold\":30}");
	expect("pg dump pgs_brief pools",
	    "{\"dumpcontents\":[\"pgs_brief\",\"pools\"],"
	    "\"prefix\":\"pg dump\"}");
	/* A word that fits nothing says what the first it was offered to. */
	expect_error("pg dump bogus",
	    "DUMPCONTENTS: 'bogus' is not one of all, "
	    "summary, sum, pools, osds, pgs or pgs_brief");
	expect_error("pg dump_stuck stale x",
	    "THRESHOLD: 'x' is not an integer");
}

/* Ceph's CephOsdName: "osd.3" and "3" alike, where the table says so. */
Test(cli_args, osd_names)
{
	expect("pg ls-by-osd osd.3", "{\"osd\":3,\"prefix\":\"pg ls-by-osd\"}");
	expect("pg ls-by-osd 3 1 active",
	    "{\"osd\":3,\"pool\":1,\"prefix\":\"pg ls-by-osd\","
	    "\"states\":[\"active\"]}");
	expect_error("pg ls-by-osd osd.x", "OSD: 'osd.x' is not an OSD id");
	expect_error("pg ls-by-osd osd.70000",
	    "OSD: osd.70000 is out of range");
	/* Not where it does not: an OSD id is not a pool id. */
	expect_error("osd create osd.3", "ID: 'osd.3' is not an integer");
}

/* Ceph's "no valid command found; 10 closest matches". */
Test(cli_args, closest_commands)
{
	char *w1[] = { "osd", "pool", "crate", "foo" };
	char *w2[] = { "osd", "nosuchcmd" };
	char *w3[] = { "xyzzy" };
	char *w4[] = { "helth" };
	const struct cli_cmd *out[10];
	size_t n, i;

	/* The six "osd pool" first, the nearest word first; then "osd". */
	n = cli_table_closest(table, w1, 4, out, 10);
	cr_assert_eq(n, 10, "%zu", n);
	cr_expect_str_eq(out[0]->prefix, "osd pool create");
	for (i = 0; i < n; i++)
		cr_expect(strncmp(out[i]->prefix, i < 6 ? "osd pool " : "osd ",
			      i < 6 ? 9 : 4) == 0,
		    "%zu: %s", i, out[i]->prefix);
	n = cli_table_closest(table, w2, 2, out, 10);
	cr_assert_eq(n, 10);
	for (i = 0; i < n; i++)
		cr_expect(strncmp(out[i]->prefix, "osd ", 4) == 0, "%s",
		    out[i]->prefix);
	cr_expect_eq(cli_table_closest(table, w3, 1, out, 10), 0);
	n = cli_table_closest(table, w4, 1, out, 10);
	cr_assert_geq(n, 1);
	cr_expect_str_eq(out[0]->prefix, "health");
	for (i = 0; i < n; i++)
		cr_expect(!(out[i]->flags & CLI_CMD_HIDDEN));
}

/* A command's whole help: usage, help, and what each argument takes. */
Test(cli_args, command_help)
{
	char buf[4096];
	FILE *f;

	f = fmemopen(buf, sizeof buf, "w");
	cr_assert_not_null(f);
	cli_cmd_print_help(cli_table_find(table, "osd reweight"), f);
	fclose(f);
	cr_expect(strstr(buf, "usage: mapmon osd reweight ID WEIGHT\n") == buf,
	    "%s", buf);
	cr_expect(strstr(buf, "\n  ID      an OSD id (N or osd.N)\n") != NULL,
	    "%s", buf);
	cr_expect(strstr(buf, "  WEIGHT  a number, 0 to 1\n") != NULL, "%s",
	    buf);
	f = fmemopen(buf, sizeof buf, "w");
	cli_cmd_print_help(cli_table_find(table, "osd create"), f);
	fclose(f);
	cr_expect(strstr(buf, "  ID  an integer, 0 to 65535 (optional)\n") !=
		NULL,
	    "%s", buf);
	f = fmemopen(buf, sizeof buf, "w");
	cli_cmd_print_help(cli_table_find(table, "pg dump_stuck"), f);
	fclose(f);
	cr_expect(strstr(buf,
		      "  STUCKOPS   any of inactive, unclean, stale, "
		      "undersized, degraded (optional)\n") != NULL,
	    "%s", buf);
	cr_expect(strstr(buf, "  THRESHOLD  an integer (optional)\n") != NULL,
	    "%s", buf);
	f = fmemopen(buf, sizeof buf, "w");
	cli_cmd_print_help(cli_table_find(table, "pg ls-by-osd"), f);
	fclose(f);
	cr_expect(strstr(buf,
		      "  OSD     an OSD id (N or osd.N), 0 to 65535\n") != NULL,
	    "%s", buf);
}

/* The lines the shell's completion reads. */
Test(cli_args, args_for_completion)
{
	char buf[16384];
	FILE *f;

	f = fmemopen(buf, sizeof buf, "w");
	cr_assert_not_null(f);
	cli_table_print_args(table, f);
	fclose(f);
	cr_expect(
	    strstr(buf,
		"\npg dump_stuck\tstuckops:strings:0::inactive|"
		"unclean|stale|undersized|degraded\tthreshold:int:0::\n") !=
		NULL,
	    "%s", buf);
	cr_expect(strstr(buf,
		      "\npg ls\tpool:int:0::\tstates:strings:0::\t"
		      "poolstr:string:0:--pool:\n") != NULL,
	    "%s", buf);
	cr_expect(strstr(buf, "\nosd pool get\tpool:string:1::\t") != NULL,
	    "%s", buf);
	cr_expect(strstr(buf, "subscribe") == NULL);
}
