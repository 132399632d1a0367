/* test_suggest.c: the one "did you mean" rule of config keys and commands. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "common/suggest.h"

/* What a search over names[] (NULL-terminated) suggests for typed. */
static const char *
nearest(const char *typed, const char *const *names)
{
	struct suggest sg;
	size_t i;

	suggest_init(&sg, typed);
	for (i = 0; names[i] != NULL; i++)
		suggest_offer(&sg, names[i]);
	return sg.best;
}

Test(suggest, distance_counts_edits_and_swaps)
{
	cr_assert_eq(suggest_distance("status", "status"), 0);
	cr_assert_eq(suggest_distance("statuss", "status"), 1);
	cr_assert_eq(suggest_distance("stats", "status"), 1);
	cr_assert_eq(suggest_distance("stbtus", "status"), 1);
	/* A swap of neighbours is one edit, not two. */
	cr_assert_eq(suggest_distance("stauts", "status"), 1);
	cr_assert_eq(suggest_distance("", "mon"), 3);
	cr_assert_eq(suggest_distance("mon", ""), 3);
	cr_assert_eq(suggest_distance("abc", "xyz"), 3);
}

Test(suggest, letters_compare_without_case)
{
	cr_assert_eq(suggest_distance("STATUS", "status"), 0);
	cr_assert_eq(suggest_distance("Propose_Intreval", "propose_interval"),
	    1);
}

Test(suggest, long_names_are_near_nothing)
{
	char a[SUGGEST_NAME_MAX + 2];

	memset(a, 'a', sizeof a - 1);
	a[sizeof a - 1] = '\0';
	cr_assert_eq(suggest_distance(a, "a"), SIZE_MAX);
	cr_assert_eq(suggest_distance("a", a), SIZE_MAX);
	a[SUGGEST_NAME_MAX] = '\0';
	cr_assert_eq(suggest_distance(a, a), 0);
}

Test(suggest, at_most_three_edits_and_fewer_than_typed)
{
	static const char *const names[] = { "propose_interval", NULL };
	static const char *const mon[] = { "mon", NULL };

	cr_assert_str_eq(nearest("propose_intervalxyz", names),
	    "propose_interval");
	cr_assert_null(nearest("propose_intervalwxyz", names));
	/* "m" is 2 from "mon": not fewer than its one letter. */
	cr_assert_str_eq(nearest("mn", mon), "mon");
	cr_assert_null(nearest("m", mon));
	cr_assert_null(nearest("", mon));
}

Test(suggest, nearest_wins_and_first_breaks_ties)
{
	static const char *const names[] = { "osd pool set", "osd pool get",
	    "osd pool ls", NULL };
	struct suggest sg;

	cr_assert_str_eq(nearest("osd pool lss", names), "osd pool ls");
	/* "osd pool xet" is 1 from both set and get: the first offered. */
	cr_assert_str_eq(nearest("osd pool xet", names), "osd pool set");

	suggest_init(&sg, "osd pool xet");
	cr_assert_eq(suggest_offer(&sg, "osd pool ls"), 1);
	cr_assert_eq(sg.distance, 3);
	cr_assert_eq(suggest_offer(&sg, "osd pool get"), 1);
	cr_assert_eq(suggest_offer(&sg, "osd pool set"), 0);
	cr_assert_str_eq(sg.best, "osd pool get");
	cr_assert_eq(sg.distance, 1);
}

/*
 * The same typo gets the same verdict whether the name is a config key
 * (conf/conf.c's loader, `config get|set`) or a command prefix
 * (mon/cmd.c): every kind of slip below, made once in a key and once in a
 * command, is either corrected in both or in neither.
 */
Test(suggest, config_keys_and_commands_by_one_rule)
{
	static const char *const keys[] = { "propose_interval",
	    "max_readers", "map_size", "debug_mon", "mon.propose_interval",
	    NULL };
	static const char *const commands[] = { "status", "health",
	    "osd pool create", "osd pool set", "config get", NULL };
	static const struct {
		const char *key_typo, *key;
		const char *command_typo, *command;
		int corrected;
	} slips[] = {
		/* a letter doubled, dropped, changed; two swapped */
		{ "propose_intervall", "propose_interval", "statuss", "status",
		    1 },
		{ "max_raders", "max_readers", "helth", "health", 1 },
		{ "map_sise", "map_size", "osd pool crxate", "osd pool create",
		    1 },
		{ "mon.propose_intreval", "mon.propose_interval",
		    "osd pool craete", "osd pool create", 1 },
		/* in other case */
		{ "DEBUG_MON", "debug_mon", "STATUS", "status", 1 },
		/* three slips are still corrected, four are not */
		{ "dbg_mn", "debug_mon", "cnfg gt", "config get", 1 },
		{ "dbg_m", "debug_mon", "cnfg g", "config get", 0 },
	};
	const char *k, *c;
	size_t i;

	for (i = 0; i < sizeof slips / sizeof slips[0]; i++) {
		cr_assert_eq(suggest_distance(slips[i].key_typo, slips[i].key),
		    suggest_distance(slips[i].command_typo,
		    slips[i].command), "slip %zu: not the same slip", i);
		k = nearest(slips[i].key_typo, keys);
		c = nearest(slips[i].command_typo, commands);
		if (slips[i].corrected) {
			cr_assert_str_eq(k, slips[i].key, "slip %zu", i);
			cr_assert_str_eq(c, slips[i].command, "slip %zu", i);
		} else {
			cr_assert_null(k, "slip %zu: '%s'", i, k);
			cr_assert_null(c, "slip %zu: '%s'", i, c);
		}
	}
}
