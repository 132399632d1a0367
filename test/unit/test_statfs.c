/* test_statfs.c: an OSD's capacity in its beacon (map/statfs.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "map/statfs.h"

/* Parse text; expect failure with cause containing want, or success. */
static int
parse(const char *text, struct statfs_osd *st, const char *want)
{
	json_t *o = json_loads(text, 0, NULL);
	char *cause = NULL;
	int rc;

	cr_assert_not_null(o, "bad test JSON: %s", text);
	rc = statfs_from_json(o, st, &cause);
	json_decref(o);
	if (want == NULL) {
		cr_assert_eq(rc, 0, "%s: %s", text, cause);
	} else {
		cr_assert_eq(rc, -1, "%s was accepted", text);
		cr_assert_not_null(strstr(cause, want),
		    "%s: cause '%s', "
		    "wanted '%s'",
		    text, cause, want);
	}
	free(cause);
	return rc;
}

Test(statfs, full_record_round_trips)
{
	struct statfs_osd st, back;
	json_t *o;
	char *cause = NULL;

	parse("{\"total\": 1000, \"used\": 300, \"avail\": 650, "
	      "\"data\": 250, \"omap\": 30, \"meta\": 20}",
	    &st, NULL);
	cr_assert_eq(st.total, 1000);
	cr_assert_eq(st.used, 300);
	cr_assert_eq(st.avail, 650);
	cr_assert_eq(st.data, 250);
	cr_assert_eq(st.omap, 30);
	cr_assert_eq(st.meta, 20);
	o = statfs_to_json(&st);
	cr_assert_eq(statfs_from_json(o, &back, &cause), 0);
	cr_assert_eq(memcmp(&st, &back, sizeof st), 0);
	json_decref(o);
}

Test(statfs, data_defaults_to_used)
{
	struct statfs_osd st;

	parse("{\"total\": 100, \"used\": 40, \"avail\": 60}", &st, NULL);
	cr_assert_eq(st.data, 40);
	cr_assert_eq(st.omap, 0);
	cr_assert_eq(st.meta, 0);
}

Test(statfs, large_values)
{
	struct statfs_osd st;

	/* 8 EiB - 1: the largest a JSON integer of jansson holds. */
	parse("{\"total\": 9223372036854775807, \"used\": 0, "
	      "\"avail\": 9223372036854775807}",
	    &st, NULL);
	cr_assert_eq(st.total, 9223372036854775807ULL);
}

Test(statfs, bad_records_name_the_field)
{
	struct statfs_osd st;

	parse("[1]", &st, "not a JSON object");
	parse("{\"used\": 1, \"avail\": 1}", &st, "'total' is missing");
	parse("{\"total\": 1, \"avail\": 1}", &st, "'used' is missing");
	parse("{\"total\": 1, \"used\": 1}", &st, "'avail' is missing");
	parse("{\"total\": -1, \"used\": 0, \"avail\": 0}", &st,
	    "'total' must be an integer >= 0");
	parse("{\"total\": 1.5, \"used\": 0, \"avail\": 0}", &st,
	    "'total' must be an integer");
	parse("{\"total\": \"1\", \"used\": 0, \"avail\": 0}", &st,
	    "'total' must be an integer");
	parse("{\"total\": 10, \"used\": 12, \"avail\": 0}", &st,
	    "used 12 > total 10");
	parse("{\"total\": 10, \"used\": 1, \"avail\": 11}", &st,
	    "avail 11 > total 10");
	parse("{\"total\": 10, \"used\": 5, \"avail\": 5, \"data\": 6}", &st,
	    "at most used");
	parse("{\"total\": 10, \"used\": 5, \"avail\": 5, \"totl\": 6}", &st,
	    "unknown field 'totl'");
}
