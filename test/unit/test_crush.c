/*
 * test_crush.c: the placement hierarchy (map/crush.h): its operations and
 * their refusals, its codecs, its tree walk, and the placement function's
 * properties (mapmon-protocol(7), PLACEMENT).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <jansson.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "map/crush.h"
#include "map/placement.h"

/* Fails the test unless rc is 0, printing the cause. */
static void
ok(int rc, char *cause)
{
	cr_assert_eq(rc, 0, "operation failed (%d): %s", rc,
	    cause ? cause : "(no cause)");
	free(cause);
}

#define W(x) ((uint64_t)((x)*65536.0 + 0.5))

/* call (which sets `why`) succeeds. */
#define OK(call)                                                               \
	do {                                                                   \
		char *why = NULL;                                              \
		int rc_ = (call);                                              \
		ok(rc_, why);                                                  \
	} while (0)

/* call (which sets `why`) is refused as refused() says, on map c. */
#define REFUSED(call, err, want)                                               \
	do {                                                                   \
		char *why = NULL;                                              \
		int rc_ = (call);                                              \
		refused(rc_, why, err, want, c, before);                       \
	} while (0)

/* The encoding of c, to compare maps byte for byte. */
static struct enc_buf
encoded(const struct crush *c)
{
	struct enc_buf b = { 0 };

	crush_encode(c, &b);
	return b;
}

/*
 * An operation was refused with -err, a one-line cause containing want,
 * and c is still exactly before.
 */
static void
refused(int rc, char *cause, int err, const char *want, const struct crush *c,
    const struct crush *before)
{
	struct enc_buf a = encoded(c), b = encoded(before);

	cr_assert_eq(rc, -err, "expected -%d, got %d (%s)", err, rc,
	    cause ? cause : "no cause");
	cr_assert_not_null(cause, "a refusal without a cause");
	cr_assert_null(strchr(cause, '\n'), "cause is not one line: %s", cause);
	cr_assert_not_null(strstr(cause, want), "cause '%s' lacks '%s'", cause,
	    want);
	cr_assert(crush_equal(c, before),
	    "a refused operation changed the map (%s)", cause);
	cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0,
	    "a refused operation changed the encoding (%s)", cause);
	enc_buf_free(&a);
	enc_buf_free(&b);
	free(cause);
}

static int32_t
id_of(const struct crush *c, const char *name)
{
	int32_t id;

	cr_assert_eq(crush_item_id(c, name, &id), 0, "no item %s", name);
	return id;
}

static int32_t
parent_of(const struct crush *c, const char *name)
{
	struct crush_bucket_info bi;
	int32_t id = id_of(c, name);

	if (id >= 0)
		return crush_osd_parent(c, id);
	cr_assert_eq(crush_bucket_get(c, id, &bi), 0);
	return bi.parent;
}

static uint64_t
bucket_weight(const struct crush *c, const char *name)
{
	struct crush_bucket_info bi;

	cr_assert_eq(crush_bucket_get(c, id_of(c, name), &bi), 0);
	return bi.weight;
}

/* Put osd at "host=HOST" (created under default) with weight w. */
static void
add_osd(struct crush *c, int32_t osd, double w, const char *host)
{
	char loc[80];
	const char *l[1] = { loc };

	snprintf(loc, sizeof loc, "host=%s", host);
	OK(crush_osd_add(c, osd, w, l, 1, &why));
}

Test(crush, default_map)
{
	struct crush *c = crush_new_default();
	struct crush_rule_info ri;
	struct crush_bucket_info bi;

	cr_assert_eq(id_of(c, "default"), -1);
	cr_assert_eq(crush_bucket_get(c, -1, &bi), 0);
	cr_assert_eq(bi.type, CRUSH_TYPE_ROOT);
	cr_assert_eq(bi.nitems, 0);
	cr_assert_eq(crush_rule_count(c), 1);
	cr_assert_eq(crush_rule_get(c, 0, &ri), 0);
	cr_assert_str_eq(ri.name, "replicated_rule");
	cr_assert_eq(ri.root, -1);
	cr_assert_eq(ri.domain, CRUSH_TYPE_HOST);
	cr_assert_null(ri.device_class);
	cr_assert_eq(crush_rule_id(c, "replicated_rule"), 0);
	cr_assert_eq(crush_rule_id(c, "nope"), -1);
	crush_free(c);
}

Test(crush, types)
{
	static const char *names[] = { "osd", "host", "rack", "room",
		"datacenter", "root" };
	static const int ids[] = { 0, 1, 3, 7, 8, 11 };
	size_t i;

	for (i = 0; i < nitems(names); i++) {
		cr_assert_eq(crush_type_id(names[i]), ids[i]);
		cr_assert_str_eq(crush_type_name(ids[i]), names[i]);
	}
	cr_assert_eq(crush_type_id("chassis"), -1);
	cr_assert_null(crush_type_name(2));
}

Test(crush, osd_add_creates_buckets_under_default)
{
	struct crush *c = crush_new_default();
	const char *l[] = { "rack=r1", "host=h2" };

	add_osd(c, 0, 1.0, "h1");
	add_osd(c, 1, 2.5, "h1");
	cr_assert_eq(parent_of(c, "h1"), -1, "h1 not under default");
	cr_assert_eq(parent_of(c, "osd.0"), id_of(c, "h1"));
	cr_assert_eq(bucket_weight(c, "h1"), W(3.5));
	OK(crush_osd_add(c, 2, 0.5, l, 2, &why));
	cr_assert_eq(parent_of(c, "h2"), id_of(c, "r1"));
	cr_assert_eq(parent_of(c, "r1"), -1);
	cr_assert_eq(bucket_weight(c, "r1"), W(0.5));
	cr_assert_eq(bucket_weight(c, "default"), W(4.0));
	cr_assert_eq(crush_osd_weight(c, 1), W(2.5));
	/* The ids are Ceph's: the lowest free negative one. */
	cr_assert_eq(id_of(c, "h1"), -2);
	cr_assert_eq(id_of(c, "h2"), -3);
	cr_assert_eq(id_of(c, "r1"), -4);
	cr_assert_eq(crush_max_osd(c), 3);
	crush_free(c);
}

Test(crush, osd_add_moves_and_sets_weight)
{
	struct crush *c = crush_new_default();
	const char *l[] = { "host=h2" };

	add_osd(c, 0, 1.0, "h1");
	OK(crush_osd_add(c, 0, 3.0, l, 1, &why));
	cr_assert_eq(parent_of(c, "osd.0"), id_of(c, "h2"));
	cr_assert_eq(bucket_weight(c, "h1"), 0);
	cr_assert_eq(bucket_weight(c, "h2"), W(3.0));
	OK(crush_osd_set(c, 0, 2.0, l, 1, &why));
	cr_assert_eq(crush_osd_weight(c, 0), W(2.0));
	crush_free(c);
}

Test(crush, create_or_move_keeps_weight)
{
	struct crush *c = crush_new_default();
	const char *l1[] = { "host=h1" }, *l2[] = { "host=h2", "rack=r9" };
	struct crush *before;

	OK(crush_osd_create_or_move(c, 4, 1.5, l1, 1, &why));
	cr_assert_eq(crush_osd_weight(c, 4), W(1.5));
	/* Already there: nothing changes, the weight given is ignored. */
	before = crush_copy(c);
	OK(crush_osd_create_or_move(c, 4, 9.0, l1, 1, &why));
	cr_assert(crush_equal(c, before));
	/* Elsewhere: moved, weight kept. */
	OK(crush_osd_create_or_move(c, 4, 9.0, l2, 2, &why));
	cr_assert_eq(parent_of(c, "osd.4"), id_of(c, "h2"));
	cr_assert_eq(parent_of(c, "h2"), id_of(c, "r9"));
	cr_assert_eq(parent_of(c, "r9"), id_of(c, "default"));
	cr_assert_eq(crush_osd_weight(c, 4), W(1.5));
	crush_free(before);
	crush_free(c);
}

Test(crush, bucket_add_and_move)
{
	struct crush *c = crush_new_default();
	const char *to_r1[] = { "rack=r1" },
		   *to_dc[] = { "datacenter=dc1", "root=default" };
	int32_t id;

	OK(crush_bucket_add(c, "r1", "rack", NULL, 0, &id, &why));
	cr_assert_eq(id, -2);
	cr_assert_eq(parent_of(c, "r1"), 0,
	    "add-bucket without a location makes a top bucket");
	add_osd(c, 0, 2.0, "h1");
	OK(crush_move(c, "h1", to_r1, 1, &why));
	cr_assert_eq(parent_of(c, "h1"), id_of(c, "r1"));
	cr_assert_eq(bucket_weight(c, "default"), 0);
	cr_assert_eq(bucket_weight(c, "r1"), W(2.0));
	/* A missing bucket on the way is created; it ends at default. */
	OK(crush_move(c, "r1", to_dc, 2, &why));
	cr_assert_eq(parent_of(c, "r1"), id_of(c, "dc1"));
	cr_assert_eq(parent_of(c, "dc1"), -1);
	cr_assert_eq(bucket_weight(c, "default"), W(2.0));
	/* Moving where it is already is no change. */
	OK(crush_move(c, "h1", to_r1, 1, &why));
	/* An OSD moves too, keeping its weight. */
	OK(crush_move(c, "osd.0", (const char *[]){ "host=h7" }, 1, &why));
	cr_assert_eq(parent_of(c, "h7"), -1);
	cr_assert_eq(crush_osd_weight(c, 0), W(2.0));
	/* With a location, add-bucket places it. */
	OK(crush_bucket_add(c, "h9", "host", to_r1, 1, NULL, &why));
	cr_assert_eq(parent_of(c, "h9"), id_of(c, "r1"));
	crush_free(c);
}

Test(crush, remove)
{
	struct crush *c = crush_new_default();

	add_osd(c, 0, 1.0, "h1");
	add_osd(c, 1, 1.0, "h1");
	OK(crush_remove(c, "osd.0", &why));
	cr_assert_not(crush_osd_exists(c, 0));
	cr_assert_eq(bucket_weight(c, "h1"), W(1.0));
	OK(crush_osd_remove(c, 1, &why));
	OK(crush_remove(c, "h1", &why));
	cr_assert_eq(crush_item_id(c, "h1", &(int32_t){ 0 }), -1);
	/* The freed id is given again. */
	OK(crush_bucket_add(c, "h2", "host", NULL, 0, NULL, &why));
	cr_assert_eq(id_of(c, "h2"), -2);
	crush_free(c);
}

Test(crush, reweight_updates_every_ancestor)
{
	struct crush *c = crush_new_default();
	const char *l[] = { "rack=r1", "host=h1" };

	OK(crush_osd_add(c, 0, 1.0, l, 2, &why));
	add_osd(c, 1, 1.0, "h1");
	OK(crush_osd_reweight(c, 0, 4.25, &why));
	cr_assert_eq(crush_osd_weight(c, 0), W(4.25));
	cr_assert_eq(bucket_weight(c, "h1"), W(5.25));
	cr_assert_eq(bucket_weight(c, "r1"), W(5.25));
	cr_assert_eq(bucket_weight(c, "default"), W(5.25));
	OK(crush_osd_reweight(c, 1, 0, &why));
	cr_assert_eq(bucket_weight(c, "default"), W(4.25));
	OK(crush_osd_reweight(c, 1, CRUSH_WEIGHT_MAX, &why));
	cr_assert_eq(crush_osd_weight(c, 1), 65536000000ULL);
	crush_free(c);
}

Test(crush, device_classes_and_shadow_weights)
{
	struct crush *c = crush_new_default();

	add_osd(c, 0, 1.0, "h1");
	add_osd(c, 1, 2.0, "h1");
	add_osd(c, 2, 4.0, "h2");
	OK(crush_osd_set_class(c, 0, "ssd", &why));
	OK(crush_osd_set_class(c, 1, "hdd", &why));
	OK(crush_osd_set_class(c, 2, "ssd", &why));
	cr_assert_str_eq(crush_osd_class(c, 0), "ssd");
	cr_assert_eq(crush_bucket_class_weight(c, -1, "ssd"), W(5.0));
	cr_assert_eq(crush_bucket_class_weight(c, -1, "hdd"), W(2.0));
	cr_assert_eq(crush_bucket_class_weight(c, id_of(c, "h1"), "ssd"),
	    W(1.0));
	cr_assert_eq(crush_bucket_class_weight(c, -1, "nvme"), 0);
	/* The same class again is no change. */
	OK(crush_osd_set_class(c, 0, "ssd", &why));
	OK(crush_osd_rm_class(c, 0, &why));
	cr_assert_null(crush_osd_class(c, 0));
	cr_assert_eq(crush_bucket_class_weight(c, -1, "ssd"), W(4.0));
	OK(crush_osd_rm_class(c, 0, &why));
	OK(crush_osd_set_class(c, 0, "nvme", &why));
	cr_assert_eq(crush_bucket_class_weight(c, -1, "nvme"), W(1.0));
	crush_free(c);
}

Test(crush, rules)
{
	struct crush *c = crush_new_default();
	const uint32_t in_use[] = { 0, 2 };
	struct crush_rule_info ri;
	uint32_t id;

	add_osd(c, 0, 1.0, "h1");
	OK(crush_osd_set_class(c, 0, "ssd", &why));
	OK(crush_rule_create(c, "fast", "default", "host", "ssd", &id, &why));
	cr_assert_eq(id, 1);
	OK(crush_rule_create(c, "by_osd", "h1", "osd", NULL, &id, &why));
	cr_assert_eq(id, 2);
	cr_assert_eq(crush_rule_get(c, 1, &ri), 0);
	cr_assert_str_eq(ri.device_class, "ssd");
	cr_assert_eq(ri.root, -1);
	OK(crush_rule_remove(c, "fast", in_use, 2, &why));
	cr_assert_eq(crush_rule_get(c, 1, &ri), -1);
	/* The lowest free id again. */
	OK(crush_rule_create(c, "again", "default", "osd", NULL, &id, &why));
	cr_assert_eq(id, 1);
	cr_assert_eq(crush_rule_count(c), 3);
	cr_assert_eq(crush_rule_at(c, 1, &ri), 0);
	cr_assert_str_eq(ri.name, "again");
	crush_free(c);
}

/* Every bad input: refused with Ceph's errno and one line; no change. */
Test(crush, bad_input_refused_map_unchanged)
{
	struct crush *c = crush_new_default(), *before;
	const char *rack_r1[] = { "rack=r1" };
	const uint32_t in_use[] = { 0 };
	char long_name[CRUSH_NAME_MAX + 2];
	int32_t id;

	add_osd(c, 0, 1.0, "h1");
	add_osd(c, 1, 1.0, "h1");
	OK(crush_osd_add(c, 2, 1.0, (const char *[]){ "rack=r1", "host=h2" }, 2,
	    &why));
	OK(crush_osd_set_class(c, 0, "ssd", &why));
	before = crush_copy(c);
	memset(long_name, 'a', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = '\0';

	/* Types. */
	REFUSED(crush_bucket_add(c, "x", "chassis", NULL, 0, &id, &why), EINVAL,
	    "unknown bucket type 'chassis'");
	REFUSED(crush_bucket_add(c, "x", "osd", NULL, 0, &id, &why), EINVAL,
	    "invalid bucket type 'osd'");
	REFUSED(
	    crush_osd_add(c, 3, 1.0, (const char *[]){ "shelf=s1" }, 1, &why),
	    EINVAL, "unknown type 'shelf'");
	REFUSED(crush_move(c, "h1", (const char *[]){ "row=x" }, 1, &why),
	    EINVAL, "unknown type 'row'");
	REFUSED(crush_rule_create(c, "r", "default", "shelf", NULL, NULL, &why),
	    EINVAL, "unknown type shelf");
	/* Names. */
	REFUSED(crush_bucket_add(c, "h1", "host", NULL, 0, &id, &why), EEXIST,
	    "h1 already exists");
	REFUSED(crush_bucket_add(c, "a b", "host", NULL, 0, &id, &why), EINVAL,
	    "invalid bucket name");
	REFUSED(crush_bucket_add(c, long_name, "host", NULL, 0, &id, &why),
	    EINVAL, "invalid bucket name");
	REFUSED(crush_bucket_add(c, "", "host", NULL, 0, &id, &why), EINVAL,
	    "invalid bucket name");
	REFUSED(crush_bucket_add(c, "osd.7", "host", NULL, 0, &id, &why),
	    EINVAL, "osd.N names the OSDs");
	REFUSED(crush_rule_create(c, "replicated_rule", "default", "host", NULL,
		    NULL, &why),
	    EEXIST, "already exists");
	REFUSED(crush_osd_set_class(c, 1, "s s", &why), EINVAL,
	    "invalid device class name");
	/* Cycles, and the order of types. */
	REFUSED(
	    crush_move(c, "default", (const char *[]){ "host=h1" }, 1, &why),
	    ELOOP, "'h1' is beneath 'default'");
	REFUSED(crush_move(c, "r1", (const char *[]){ "host=h2" }, 1, &why),
	    ELOOP, "'h2' is beneath 'r1'");
	/* Ceph's insert_item: a bucket in its own subtree is EINVAL. */
	REFUSED(crush_move(c, "r1", rack_r1, 1, &why), EINVAL, "under itself");
	REFUSED(crush_move(c, "h1", (const char *[]){ "host=h2" }, 1, &why),
	    EINVAL, "a host is not above a host");
	REFUSED(crush_bucket_add(c, "h3", "host", (const char *[]){ "rack=h3" },
		    1, &id, &why),
	    EINVAL, "under itself");
	REFUSED(
	    crush_move(c, "h1", (const char *[]){ "rack=default" }, 1, &why),
	    EINVAL, "'default' is a root, not a rack");
	REFUSED(crush_move(c, "h1", (const char *[]){ "rack=osd.1" }, 1, &why),
	    EINVAL, "is an OSD");
	/* Locations. */
	REFUSED(crush_osd_add(c, 3, 1.0, (const char *[]){ "host" }, 1, &why),
	    EINVAL, "expected TYPE=NAME");
	REFUSED(crush_osd_add(c, 3, 1.0, (const char *[]){ "host=" }, 1, &why),
	    EINVAL, "expected TYPE=NAME");
	REFUSED(crush_osd_add(c, 3, 1.0, (const char *[]){ "host=a", "host=b" },
		    2, &why),
	    EINVAL, "type 'host' appears twice");
	REFUSED(crush_osd_add(c, 3, 1.0, (const char *[]){ "host=x", "rack=x" },
		    2, &why),
	    EINVAL, "'x' appears twice");
	REFUSED(crush_osd_add(c, 3, 1.0, (const char *[]){ "osd=x" }, 1, &why),
	    EINVAL, "an OSD holds no items");
	REFUSED(crush_osd_add(c, 3, 1.0, NULL, 0, &why), EINVAL,
	    "no location given for osd.3");
	REFUSED(crush_move(c, "h1", NULL, 0, &why), EINVAL,
	    "no location given");
	REFUSED(crush_osd_add(c, -1, 1.0, rack_r1, 1, &why), EINVAL,
	    "out of range");
	REFUSED(crush_osd_add(c, CRUSH_MAX_DEVICES, 1.0, rack_r1, 1, &why),
	    EINVAL, "out of range");
	/* Weights. */
	REFUSED(crush_osd_add(c, 3, -1.0, rack_r1, 1, &why), EINVAL,
	    "weight -1 of osd.3 is negative");
	REFUSED(crush_osd_add(c, 3, NAN, rack_r1, 1, &why), EINVAL,
	    "weight of osd.3 is not a number");
	REFUSED(crush_osd_reweight(c, 0, 1e6 + 1, &why), EINVAL,
	    "is above 1e+06");
	REFUSED(crush_osd_reweight(c, 0, INFINITY, &why), EINVAL, "is above");
	REFUSED(crush_osd_reweight(c, 0, -0.5, &why), EINVAL, "negative");
	REFUSED(crush_osd_reweight(c, 0, NAN, &why), EINVAL, "not a number");
	/* Things that are not there. */
	REFUSED(crush_osd_reweight(c, 9, 1.0, &why), ENOENT,
	    "'osd.9' does not appear in the crush map");
	REFUSED(crush_osd_set(c, 9, 1.0, rack_r1, 1, &why), ENOENT,
	    "does not exist");
	REFUSED(crush_osd_remove(c, 9, &why), ENOENT, "does not appear");
	REFUSED(crush_remove(c, "nope", &why), ENOENT, "does not appear");
	REFUSED(crush_remove(c, "osd.99999999", &why), ENOENT,
	    "does not appear");
	REFUSED(crush_move(c, "nope", rack_r1, 1, &why), ENOENT,
	    "item nope does not exist");
	REFUSED(crush_move(c, "osd.9", rack_r1, 1, &why), ENOENT,
	    "item osd.9 does not exist");
	REFUSED(crush_osd_set_class(c, 9, "ssd", &why), ENOENT,
	    "does not appear");
	REFUSED(crush_osd_rm_class(c, 9, &why), ENOENT, "does not appear");
	/* Rules. */
	REFUSED(crush_rule_create(c, "r", "missing", "host", NULL, NULL, &why),
	    ENOENT, "root item missing does not exist");
	REFUSED(crush_rule_create(c, "r", "h1", "host", NULL, NULL, &why),
	    EINVAL, "failure domain host is not below host h1");
	REFUSED(crush_rule_create(c, "r", "default", "root", NULL, NULL, &why),
	    EINVAL, "is not below");
	REFUSED(
	    crush_rule_create(c, "r", "default", "host", "nvme", NULL, &why),
	    EINVAL, "device class nvme does not exist");
	REFUSED(crush_rule_remove(c, "replicated_rule", in_use, 1, &why), EBUSY,
	    "crush ruleset replicated_rule 0 is in use");
	REFUSED(crush_rule_remove(c, "nope", NULL, 0, &why), ENOENT,
	    "rule nope does not exist");
	/* Removing what is not empty or what a rule takes. */
	REFUSED(crush_remove(c, "h1", &why), ENOTEMPTY,
	    "bucket 'h1' is not empty: it holds 2 items");
	REFUSED(crush_remove(c, "default", &why), ENOTEMPTY, "not empty");
	/* Classes. */
	REFUSED(crush_osd_set_class(c, 0, "hdd", &why), EBUSY,
	    "osd.0 has already bound to class 'ssd'");

	/* A bucket a rule takes, once empty, is still refused. */
	OK(crush_bucket_add(c, "empty_root", "root", NULL, 0, NULL, &why));
	OK(crush_rule_create(c, "on_empty", "empty_root", "host", NULL, NULL,
	    &why));
	crush_free(before);
	before = crush_copy(c);
	REFUSED(crush_remove(c, "empty_root", &why), EBUSY,
	    "in use by crush rule 'on_empty'");
	crush_free(before);
	crush_free(c);
}

Test(crush, too_many_classes_and_rules)
{
	struct crush *c = crush_new_default(), *before;
	char name[32];
	int i;

	for (i = 0; i <= CRUSH_MAX_CLASSES; i++) {
		snprintf(name, sizeof name, "h%d", i);
		add_osd(c, i, 1.0, name);
	}
	for (i = 0; i < CRUSH_MAX_CLASSES; i++) {
		snprintf(name, sizeof name, "c%d", i);
		OK(crush_osd_set_class(c, i, name, &why));
	}
	before = crush_copy(c);
	REFUSED(crush_osd_set_class(c, CRUSH_MAX_CLASSES, "onemore", &why),
	    ENOSPC, "too many device classes");
	/* A class already known is fine. */
	OK(crush_osd_set_class(c, CRUSH_MAX_CLASSES, "c0", &why));
	for (i = 1; i < CRUSH_MAX_RULES; i++) {
		snprintf(name, sizeof name, "rule%d", i);
		OK(crush_rule_create(c, name, "default", "host", NULL, NULL,
		    &why));
	}
	crush_free(before);
	before = crush_copy(c);
	REFUSED(
	    crush_rule_create(c, "last", "default", "host", NULL, NULL, &why),
	    ENOSPC, "too many rules");
	crush_free(before);
	crush_free(c);
}

/* A map with everything: racks, hosts, classes, unequal weights, rules. */
static struct crush *
sample_map(void)
{
	struct crush *c = crush_new_default();
	char host[32], rack[32];
	const char *l[2] = { host, rack };
	int i;

	for (i = 0; i < 24; i++) {
		snprintf(host, sizeof host, "host=h%d", i / 3);
		snprintf(rack, sizeof rack, "rack=r%d", i / 9);
		OK(crush_osd_add(c, i, 0.5 + (i % 5) * 0.75, l, 2, &why));
		OK(crush_osd_set_class(c, i, i % 4 == 0 ? "ssd" : "hdd", &why));
	}
	OK(crush_bucket_add(c, "spare", "host", NULL, 0, NULL, &why));
	OK(crush_rule_create(c, "rack_ssd", "default", "rack", "ssd", NULL,
	    &why));
	OK(crush_rule_create(c, "by_osd", "r1", "osd", NULL, NULL, &why));
	return c;
}

Test(crush, copy_and_equal)
{
	struct crush *c = sample_map(), *d = crush_copy(c);

	cr_assert(crush_equal(c, d));
	OK(crush_osd_reweight(d, 3, 7.0, &why));
	cr_assert_not(crush_equal(c, d));
	crush_free(d);
	d = crush_copy(c);
	OK(crush_osd_rm_class(d, 3, &why));
	cr_assert_not(crush_equal(c, d));
	crush_free(d);
	d = crush_copy(c);
	OK(crush_move(d, "h1", (const char *[]){ "rack=r2" }, 1, &why));
	cr_assert_not(crush_equal(c, d));
	crush_free(d);
	d = crush_copy(c);
	OK(crush_rule_remove(d, "by_osd", NULL, 0, &why));
	cr_assert_not(crush_equal(c, d));
	crush_free(d);
	crush_free(c);
}

Test(crush, encode_decode_round_trip)
{
	struct crush *maps[3], *d;
	struct enc_buf a, b;
	char *cause = NULL;
	size_t i;

	maps[0] = crush_new();
	maps[1] = crush_new_default();
	maps[2] = sample_map();
	for (i = 0; i < nitems(maps); i++) {
		a = encoded(maps[i]);
		d = crush_decode(a.data, a.len, &cause);
		cr_assert_not_null(d, "decode failed: %s", cause);
		cr_assert(crush_equal(maps[i], d));
		b = encoded(d);
		cr_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
		enc_buf_free(&a);
		enc_buf_free(&b);
		crush_free(d);
		crush_free(maps[i]);
	}
}

/* A decoder either refuses with a cause or gives a map that re-encodes. */
static void
decode_safely(const uint8_t *p, size_t len)
{
	struct crush *d, *e;
	struct enc_buf a;
	char *cause = NULL;

	d = crush_decode(p, len, &cause);
	if (d == NULL) {
		cr_assert_not_null(cause, "refused without a cause");
		cr_assert_eq(strncmp(cause, "crush: ", 7), 0, "%s", cause);
		free(cause);
		return;
	}
	a = encoded(d);
	e = crush_decode(a.data, a.len, &cause);
	cr_assert_not_null(e, "a decoded map does not decode again: %s", cause);
	cr_assert(crush_equal(d, e));
	enc_buf_free(&a);
	crush_free(d);
	crush_free(e);
}

Test(crush, decode_refuses_truncations_and_bad_lengths)
{
	struct crush *c = sample_map();
	struct enc_buf a = encoded(c);
	uint8_t *p = xmalloc(a.len + 8);
	char *cause = NULL;
	size_t i, len;
	uint32_t seed = 12345;

	/* Every truncation is refused. */
	for (len = 0; len < a.len; len++) {
		cr_assert_null(crush_decode(a.data, len, &cause),
		    "a record cut at %zu bytes of %zu decoded", len, a.len);
		cr_assert_not_null(cause);
		free(cause);
		cause = NULL;
	}
	/* Huge counts and lengths in every 32-bit field position. */
	for (i = 0; i + 4 <= a.len; i++) {
		memcpy(p, a.data, a.len);
		p[i] = p[i + 1] = p[i + 2] = p[i + 3] = 0xff;
		decode_safely(p, a.len);
		p[i] = 0x7f;
		decode_safely(p, a.len);
	}
	/* Trailing bytes, and random corruption. */
	memcpy(p, a.data, a.len);
	p[a.len] = 0;
	cr_assert_null(crush_decode(p, a.len + 1, &cause));
	free(cause);
	for (i = 0; i < 20000; i++) {
		size_t at;

		memcpy(p, a.data, a.len);
		seed = seed * 1103515245u + 12345u;
		at = (seed >> 8) % a.len;
		seed = seed * 1103515245u + 12345u;
		p[at] ^= (uint8_t)(1u << ((seed >> 16) % 8));
		decode_safely(p, a.len);
	}
	/* A newer compat version is refused by name. */
	memcpy(p, a.data, a.len);
	p[1] = CRUSH_STRUCT_V + 1;
	cr_assert_null(crush_decode(p, a.len, &cause));
	cr_assert_not_null(strstr(cause, "newer"));
	free(cause);
	free(p);
	enc_buf_free(&a);
	crush_free(c);
}

Test(crush, json_dump_shape)
{
	struct crush *c = sample_map();
	json_t *j = crush_to_json(c), *b, *rule, *steps;
	json_t *first_item;
	size_t i;

	cr_assert_eq(json_array_size(json_object_get(j, "devices")), 24);
	cr_assert_str_eq(
	    json_string_value(json_object_get(
		json_array_get(json_object_get(j, "devices"), 0), "class")),
	    "ssd");
	cr_assert_eq(json_array_size(json_object_get(j, "types")), 6);
	b = json_array_get(json_object_get(j, "buckets"), 0);
	cr_assert_eq(json_integer_value(json_object_get(b, "id")), -1);
	cr_assert_str_eq(json_string_value(json_object_get(b, "name")),
	    "default");
	cr_assert_str_eq(json_string_value(json_object_get(b, "type_name")),
	    "root");
	cr_assert_eq(json_integer_value(json_object_get(b, "type_id")), 11);
	cr_assert_eq(json_integer_value(json_object_get(b, "weight")),
	    (json_int_t)bucket_weight(c, "default"));
	first_item = json_array_get(json_object_get(b, "items"), 0);
	cr_assert_eq(json_integer_value(json_object_get(first_item, "pos")), 0);
	rule = NULL;
	for (i = 0; i < json_array_size(json_object_get(j, "rules")); i++) {
		json_t *r = json_array_get(json_object_get(j, "rules"), i);

		if (strcmp(json_string_value(json_object_get(r, "rule_name")),
			"rack_ssd") == 0)
			rule = r;
	}
	cr_assert_not_null(rule);
	steps = json_object_get(rule, "steps");
	cr_assert_str_eq(json_string_value(json_object_get(
			     json_array_get(steps, 0), "item_name")),
	    "default~ssd");
	cr_assert_str_eq(
	    json_string_value(json_object_get(json_array_get(steps, 1), "op")),
	    "chooseleaf_firstn");
	cr_assert_str_eq(json_string_value(
			     json_object_get(json_array_get(steps, 1), "type")),
	    "rack");
	cr_assert_str_eq(
	    json_string_value(json_object_get(json_array_get(steps, 2), "op")),
	    "emit");
	cr_assert_eq(json_integer_value(json_object_get(
			 json_object_get(j, "tunables"), "choose_total_tries")),
	    50);
	json_decref(j);
	cr_assert_null(crush_rule_to_json(c, 77));
	crush_free(c);
}

Test(crush, json_round_trip_and_refusals)
{
	struct crush *c = sample_map(), *d;
	json_t *j = crush_to_json(c), *k;
	char *cause = NULL, *text;

	d = crush_from_json(j, &cause);
	cr_assert_not_null(d, "%s", cause);
	cr_assert(crush_equal(c, d));
	crush_free(d);
	/* Through text, as a client receives it. */
	text = json_dumps(j, JSON_COMPACT);
	k = json_loads(text, 0, NULL);
	d = crush_from_json(k, &cause);
	cr_assert_not_null(d, "%s", cause);
	cr_assert(crush_equal(c, d));
	crush_free(d);
	json_decref(k);
	free(text);

	/* A stated weight that is not the items' sum. */
	k = json_deep_copy(j);
	json_object_set_new(json_array_get(json_object_get(k, "buckets"), 0),
	    "weight", json_integer(1));
	cr_assert_null(crush_from_json(k, &cause));
	cr_assert_not_null(strstr(cause, "sum"), "%s", cause);
	free(cause);
	json_decref(k);
	/* A rule on a bucket that does not exist. */
	k = json_deep_copy(j);
	json_object_set_new(
	    json_array_get(
		json_object_get(json_array_get(json_object_get(k, "rules"), 0),
		    "steps"),
		0),
	    "item", json_integer(-500));
	cr_assert_null(crush_from_json(k, &cause));
	cr_assert_not_null(cause);
	free(cause);
	json_decref(k);
	/* An item twice. */
	k = json_deep_copy(j);
	json_array_append(
	    json_object_get(json_array_get(json_object_get(k, "buckets"), 1),
		"items"),
	    json_array_get(
		json_object_get(
		    json_array_get(json_object_get(k, "buckets"), 2), "items"),
		0));
	cr_assert_null(crush_from_json(k, &cause));
	cr_assert_not_null(cause);
	free(cause);
	json_decref(k);
	/* Two buckets of one name. */
	k = json_deep_copy(j);
	json_object_set_new(json_array_get(json_object_get(k, "buckets"), 1),
	    "name", json_string("default"));
	cr_assert_null(crush_from_json(k, &cause));
	cr_assert_not_null(strstr(cause, "'default' appears twice"), "%s",
	    cause);
	free(cause);
	json_decref(k);
	/* Not a map at all. */
	k = json_pack("{s:[]}", "buckets");
	cr_assert_null(crush_from_json(k, &cause));
	cr_assert_not_null(cause);
	free(cause);
	json_decref(k);
	json_decref(j);
	crush_free(c);
}

Test(crush, tree_walk)
{
	struct crush *c = crush_new_default();
	struct crush_tree_node *nodes;
	json_t *j, *kids;
	size_t n;

	add_osd(c, 3, 1.0, "hb");
	add_osd(c, 1, 2.0, "hb");
	add_osd(c, 2, 1.0, "ha");
	OK(crush_osd_set_class(c, 1, "ssd", &why));
	OK(crush_bucket_add(c, "lone", "root", NULL, 0, NULL, &why));
	n = crush_tree(c, &nodes);
	cr_assert_eq(n, 7);
	/* Top buckets by id, lowest first: lone (-4) before default (-1). */
	cr_assert_eq(nodes[0].id, id_of(c, "lone"));
	cr_assert_eq(nodes[0].depth, 0);
	cr_assert_eq(nodes[1].id, -1);
	cr_assert_eq(nodes[1].nchildren, 2);
	/* Buckets by name; OSDs by class ("" before "ssd"), then id. */
	cr_assert_eq(nodes[2].id, id_of(c, "ha"));
	cr_assert_eq(nodes[2].depth, 1);
	cr_assert_eq(nodes[3].id, 2);
	cr_assert_eq(nodes[3].depth, 2);
	cr_assert_eq(nodes[4].id, id_of(c, "hb"));
	cr_assert_eq(nodes[5].id, 3);
	cr_assert_eq(nodes[6].id, 1);
	cr_assert_eq(nodes[6].weight, W(2.0));
	cr_assert_eq(nodes[6].parent, id_of(c, "hb"));
	free(nodes);
	j = crush_tree_to_json(c);
	cr_assert_eq(json_array_size(json_object_get(j, "nodes")), 7);
	cr_assert_eq(json_array_size(json_object_get(j, "stray")), 0);
	/* Ceph lists children in the reverse of the walk. */
	kids = json_object_get(json_array_get(json_object_get(j, "nodes"), 1),
	    "children");
	cr_assert_eq(json_integer_value(json_array_get(kids, 0)),
	    id_of(c, "hb"));
	cr_assert_eq(json_integer_value(json_array_get(kids, 1)),
	    id_of(c, "ha"));
	cr_assert_str_eq(json_string_value(json_object_get(
			     json_array_get(json_object_get(j, "nodes"), 6),
			     "device_class")),
	    "ssd");
	cr_assert_eq(json_real_value(json_object_get(
			 json_array_get(json_object_get(j, "nodes"), 6),
			 "crush_weight")),
	    2.0);
	json_decref(j);
	crush_free(c);
}

/*
 * The placement function's properties.
 */

/* nh hosts h0.. of per OSDs each (ids host * per + i), weight w(i). */
static struct crush *
hosts_map(int nh, int per, double (*w)(int))
{
	struct crush *c = crush_new_default();
	int h, i;

	for (h = 0; h < nh; h++) {
		char host[16];

		snprintf(host, sizeof host, "h%d", h);
		for (i = 0; i < per; i++)
			add_osd(c, h * per + i, w != NULL ? w(i) : 1.0, host);
	}
	return c;
}

/* n OSD states, all up and fully in. */
static struct crush_osd_state *
all_up(size_t n)
{
	struct crush_osd_state *st = xcalloc(n, sizeof *st);
	size_t i;

	for (i = 0; i < n; i++) {
		st[i].up = 1;
		st[i].reweight = CRUSH_WEIGHT_ONE;
	}
	return st;
}

/* The up sets of PGs 1.0 .. 1.(npg-1): sets[pg * size ...], lens[pg]. */
struct mapping {
	uint32_t npg;
	unsigned size;
	int32_t *sets;
	int *lens;
};

static struct mapping
map_all(const struct crush *c, uint32_t rule, const struct crush_osd_state *st,
    size_t nst, uint32_t npg, unsigned size)
{
	struct mapping m = { npg, size, NULL, NULL };
	uint32_t s;

	m.sets = xcalloc((size_t)npg * size, sizeof *m.sets);
	m.lens = xcalloc(npg, sizeof *m.lens);
	for (s = 0; s < npg; s++) {
		m.lens[s] = crush_map_pg(c, rule, st, nst, 1, s, size,
		    m.sets + (size_t)s * size);
		cr_assert_geq(m.lens[s], 0);
	}
	return m;
}

static void
mapping_free(struct mapping *m)
{
	free(m->sets);
	free(m->lens);
}

static int
has(const struct mapping *m, uint32_t pg, int32_t osd)
{
	int i;

	for (i = 0; i < m->lens[pg]; i++)
		if (m->sets[(size_t)pg * m->size + i] == osd)
			return 1;
	return 0;
}

static int
same_set(const struct mapping *a, const struct mapping *b, uint32_t pg)
{
	return a->lens[pg] == b->lens[pg] &&
	    memcmp(a->sets + (size_t)pg * a->size,
		b->sets + (size_t)pg * b->size,
		(size_t)a->lens[pg] * sizeof *a->sets) == 0;
}

/* The bucket of type t above osd. */
static int32_t
ancestor(const struct crush *c, int32_t osd, int t)
{
	struct crush_bucket_info bi;
	int32_t id = crush_osd_parent(c, osd);

	while (id != 0) {
		cr_assert_eq(crush_bucket_get(c, id, &bi), 0);
		if (bi.type == t)
			return id;
		id = bi.parent;
	}
	return 0;
}

/* No two members of any set under one bucket of type t. */
static void
assert_spread(const struct crush *c, const struct mapping *m, int t)
{
	uint32_t pg;
	int i, j;

	for (pg = 0; pg < m->npg; pg++)
		for (i = 0; i < m->lens[pg]; i++)
			for (j = i + 1; j < m->lens[pg]; j++)
				cr_assert_neq(
				    ancestor(c,
					m->sets[(size_t)pg * m->size + i], t),
				    ancestor(c,
					m->sets[(size_t)pg * m->size + j], t),
				    "PG 1.%x has two copies under one %s", pg,
				    crush_type_name(t));
}

static double
w_uneven(int i)
{
	return 0.5 + (i % 4) * 0.5;
}

Test(crush_place, hosts_as_domain_no_two_copies_under_one_host)
{
	struct crush *c = crush_new_default();
	struct crush_osd_state *st = all_up(64);
	struct mapping m;
	uint32_t pg;
	int h, i, osd = 0;

	/* Ten hosts of 1 to 6 OSDs, unequal weights. */
	for (h = 0; h < 10; h++) {
		char host[16];

		snprintf(host, sizeof host, "h%d", h);
		for (i = 0; i <= h % 6; i++, osd++)
			add_osd(c, osd, w_uneven(osd), host);
	}
	m = map_all(c, 0, st, 64, 20000, 3);
	for (pg = 0; pg < m.npg; pg++)
		cr_assert_eq(m.lens[pg], 3, "PG 1.%x is short", pg);
	assert_spread(c, &m, CRUSH_TYPE_HOST);
	mapping_free(&m);
	/*
	 * Up to as many copies as hosts: never two on one host.  (Sets may
	 * be short: the last copies must find the hosts left within 51
	 * attempts, and h0 weighs 0.5 of 44, as in Ceph.)
	 */
	m = map_all(c, 0, st, 64, 2000, 10);
	for (pg = 0; pg < m.npg; pg++)
		cr_assert_geq(m.lens[pg], 6, "PG 1.%x has %d copies", pg,
		    m.lens[pg]);
	assert_spread(c, &m, CRUSH_TYPE_HOST);
	mapping_free(&m);
	free(st);
	crush_free(c);
}

Test(crush_place, racks_as_domain_no_two_copies_under_one_rack)
{
	struct crush *c = crush_new_default();
	struct crush_osd_state *st = all_up(64);
	struct mapping m;
	char host[32], rack[32];
	const char *l[2] = { host, rack };
	uint32_t pg, rule;
	int i;

	/* Four racks of three hosts of two OSDs. */
	for (i = 0; i < 24; i++) {
		snprintf(host, sizeof host, "host=h%d", i / 2);
		snprintf(rack, sizeof rack, "rack=r%d", i / 6);
		OK(crush_osd_add(c, i, w_uneven(i), l, 2, &why));
	}
	OK(crush_rule_create(c, "by_rack", "default", "rack", NULL, &rule,
	    &why));
	m = map_all(c, rule, st, 64, 20000, 3);
	for (pg = 0; pg < m.npg; pg++)
		cr_assert_eq(m.lens[pg], 3);
	assert_spread(c, &m, CRUSH_TYPE_RACK);
	mapping_free(&m);
	/* Five copies over four racks: short sets of four. */
	m = map_all(c, rule, st, 64, 2000, 5);
	for (pg = 0; pg < m.npg; pg++)
		cr_assert_eq(m.lens[pg], 4, "PG 1.%x has %d copies", pg,
		    m.lens[pg]);
	assert_spread(c, &m, CRUSH_TYPE_RACK);
	mapping_free(&m);
	free(st);
	crush_free(c);
}

Test(crush_place, reweight_moves_only_pgs_to_or_from_that_osd)
{
	struct crush *c = hosts_map(8, 4, w_uneven);
	struct crush_osd_state *st = all_up(32);
	struct mapping a, b;
	uint32_t pg, moved = 0, had = 0, has_after = 0;

	a = map_all(c, 0, st, 32, 20000, 3);
	st[13].reweight = 0x8000; /* 0.5 */
	b = map_all(c, 0, st, 32, 20000, 3);
	for (pg = 0; pg < a.npg; pg++) {
		had += has(&a, pg, 13);
		has_after += has(&b, pg, 13);
		if (same_set(&a, &b, pg))
			continue;
		moved++;
		cr_assert(has(&a, pg, 13) || has(&b, pg, 13),
		    "PG 1.%x moved without osd.13", pg);
	}
	cr_assert_gt(moved, 0);
	/* At reweight 0.5 it keeps about half its PGs (is_out's hash). */
	cr_assert(fabs((double)has_after / had - 0.5) < 0.05,
	    "osd.13 kept %u of %u PGs", has_after, had);
	mapping_free(&a);
	mapping_free(&b);
	free(st);
	crush_free(c);
}

/*
 * A crush weight change alters its host's weight too, so (as in Ceph) PGs
 * move into or out of that host, to or from any of its OSDs: every PG that
 * moves has a copy in that host before or after, and most of the moved
 * copies are the OSD's own.
 */
Test(crush_place, crush_weight_moves_only_pgs_to_or_from_that_host)
{
	struct crush *c = hosts_map(8, 4, w_uneven), *d;
	struct crush_osd_state *st = all_up(32);
	struct mapping a, b;
	int32_t host;
	uint32_t pg, moved = 0, with_osd = 0;
	int i, in_host;

	d = crush_copy(c);
	OK(crush_osd_reweight(d, 13, 3.0, &why));
	host = crush_osd_parent(c, 13);
	a = map_all(c, 0, st, 32, 20000, 3);
	b = map_all(d, 0, st, 32, 20000, 3);
	for (pg = 0; pg < a.npg; pg++) {
		if (same_set(&a, &b, pg))
			continue;
		moved++;
		in_host = 0;
		for (i = 0; i < a.lens[pg]; i++)
			in_host |= crush_osd_parent(c,
				       a.sets[(size_t)pg * 3 + i]) == host;
		for (i = 0; i < b.lens[pg]; i++)
			in_host |= crush_osd_parent(c,
				       b.sets[(size_t)pg * 3 + i]) == host;
		cr_assert(in_host,
		    "PG 1.%x moved without a copy in osd.13's host", pg);
		with_osd += has(&b, pg, 13) && !has(&a, pg, 13);
	}
	cr_assert_gt(moved, 0);
	cr_assert_gt(with_osd * 2, moved, "only %u of %u moves went to osd.13",
	    with_osd, moved);
	mapping_free(&a);
	mapping_free(&b);
	free(st);
	crush_free(c);
	crush_free(d);
}

Test(crush_place, marking_out_or_down_moves_only_pgs_that_had_it)
{
	struct crush *c = hosts_map(8, 4, w_uneven);
	struct crush_osd_state *st = all_up(32);
	struct mapping a, b;
	uint32_t pg, moved;
	int pass;

	a = map_all(c, 0, st, 32, 20000, 3);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0)
			st[6].reweight = 0; /* out */
		else
			st[6].up = 0; /* down */
		b = map_all(c, 0, st, 32, 20000, 3);
		moved = 0;
		for (pg = 0; pg < a.npg; pg++) {
			cr_assert_not(has(&b, pg, 6), "PG 1.%x kept osd.6", pg);
			if (same_set(&a, &b, pg))
				continue;
			moved++;
			cr_assert(has(&a, pg, 6),
			    "PG 1.%x moved but never had osd.6", pg);
			cr_assert_eq(b.lens[pg], 3);
		}
		cr_assert_gt(moved, 0);
		mapping_free(&b);
		st[6].reweight = CRUSH_WEIGHT_ONE;
	}
	mapping_free(&a);
	free(st);
	crush_free(c);
}

Test(crush_place, adding_a_host_moves_its_share)
{
	struct crush *c = hosts_map(16, 4, NULL), *d;
	struct crush_osd_state *st = all_up(68);
	struct mapping a, b;
	const double share = 4.0 / (64 + 4);
	uint32_t pg;
	long moved = 0, onto = 0, total = 0;
	int i, j, found;

	d = crush_copy(c);
	for (i = 64; i < 68; i++)
		add_osd(d, i, 1.0, "new");
	a = map_all(c, 0, st, 68, 50000, 3);
	b = map_all(d, 0, st, 68, 50000, 3);
	for (pg = 0; pg < a.npg; pg++) {
		total += a.lens[pg];
		for (i = 0; i < b.lens[pg]; i++) {
			int32_t osd = b.sets[(size_t)pg * 3 + i];

			for (j = 0, found = 0; j < a.lens[pg]; j++)
				found |= a.sets[(size_t)pg * 3 + j] == osd;
			moved += !found;
			onto += osd >= 64;
		}
	}
	cr_assert(fabs((double)moved / total / share - 1) < 0.2,
	    "moved %.4f of the copies, expected about %.4f",
	    (double)moved / total, share);
	cr_assert(fabs((double)onto / total / share - 1) < 0.2,
	    "the new host holds %.4f of the copies, expected about %.4f",
	    (double)onto / total, share);
	mapping_free(&a);
	mapping_free(&b);
	free(st);
	crush_free(c);
	crush_free(d);
}

/* Hosts of equal total weight; OSD weights 0.5, 1, 1.5, 2 within each. */
static double
w_spread(int i)
{
	return 0.5 + (i % 4) * 0.5;
}

Test(crush_place, per_osd_counts_within_ten_percent_of_weighted_mean)
{
	struct crush *c = hosts_map(8, 8, w_spread);
	struct crush_osd_state *st = all_up(64);
	struct mapping m;
	long count[64] = { 0 };
	double total_w = 0, expect, dev, worst = 0;
	uint32_t pg;
	int i;

	m = map_all(c, 0, st, 64, 100000, 3);
	for (pg = 0; pg < m.npg; pg++) {
		cr_assert_eq(m.lens[pg], 3);
		for (i = 0; i < 3; i++)
			count[m.sets[(size_t)pg * 3 + i]]++;
	}
	for (i = 0; i < 64; i++)
		total_w += (double)crush_osd_weight(c, i);
	for (i = 0; i < 64; i++) {
		expect = 300000.0 * (double)crush_osd_weight(c, i) / total_w;
		dev = fabs(count[i] - expect) / expect;
		if (dev > worst)
			worst = dev;
		cr_assert(dev < 0.10,
		    "osd.%d holds %ld copies, the weighted mean is %.0f", i,
		    count[i], expect);
	}
	cr_log_info("worst per-OSD deviation %.2f%%", worst * 100);
	mapping_free(&m);
	free(st);
	crush_free(c);
}

Test(crush_place, class_rules_draw_only_their_class)
{
	struct crush *c = hosts_map(6, 4, w_uneven);
	struct crush_osd_state *st = all_up(24);
	struct mapping m;
	uint32_t pg, rule;
	long ssd_copies[24] = { 0 };
	int i;

	/* osd 0 and 1 of each host are ssd; host 5 has none. */
	for (i = 0; i < 24; i++)
		if (i % 4 < 2 && i < 20)
			OK(crush_osd_set_class(c, i, "ssd", &why));
		else
			OK(crush_osd_set_class(c, i, "hdd", &why));
	OK(crush_rule_create(c, "fast", "default", "host", "ssd", &rule, &why));
	m = map_all(c, rule, st, 24, 20000, 3);
	for (pg = 0; pg < m.npg; pg++) {
		cr_assert_eq(m.lens[pg], 3);
		for (i = 0; i < 3; i++) {
			int32_t osd = m.sets[(size_t)pg * 3 + i];

			cr_assert_str_eq(crush_osd_class(c, osd), "ssd");
			ssd_copies[osd]++;
		}
	}
	assert_spread(c, &m, CRUSH_TYPE_HOST);
	/* By class weight: osd.1 (weight 1) about twice osd.0 (0.5). */
	cr_assert(fabs((double)ssd_copies[1] / ssd_copies[0] - 2) < 0.2,
	    "osd.1 %ld copies, osd.0 %ld", ssd_copies[1], ssd_copies[0]);
	mapping_free(&m);
	/* Five ssd hosts: six copies give sets of five. */
	m = map_all(c, rule, st, 24, 1000, 6);
	for (pg = 0; pg < m.npg; pg++)
		cr_assert_eq(m.lens[pg], 5);
	mapping_free(&m);
	free(st);
	crush_free(c);
}

Test(crush_place, short_and_empty_sets)
{
	struct crush *c = hosts_map(3, 2, NULL), *e = crush_new_default();
	struct crush_osd_state *st = all_up(6);
	int32_t up[CRUSH_MAX_SIZE + 5];
	uint32_t s, rule;
	int n, i;

	for (s = 0; s < 500; s++) {
		cr_assert_eq(crush_map_pg(c, 0, st, 6, 1, s, 5, up), 3);
		cr_assert_eq(crush_map_pg(c, 0, st, 6, 1, s, 0, up), 0);
		cr_assert_eq(crush_map_pg(e, 0, st, 6, 1, s, 3, up), 0);
	}
	cr_assert_eq(crush_map_pg(c, 7, st, 6, 1, 0, 3, up), -1);
	/* A whole host down: its OSDs never appear, sets of two. */
	st[2].up = st[3].up = 0;
	for (s = 0; s < 500; s++) {
		n = crush_map_pg(c, 0, st, 6, 1, s, 3, up);
		cr_assert_eq(n, 2);
		for (i = 0; i < n; i++)
			cr_assert(up[i] != 2 && up[i] != 3);
	}
	/* OSDs past the states given count as out. */
	for (s = 0; s < 500; s++)
		cr_assert_eq(crush_map_pg(c, 0, st, 2, 1, s, 3, up), 1);
	/* Everything down: empty sets. */
	for (i = 0; i < 6; i++)
		st[i].up = 0;
	for (s = 0; s < 500; s++)
		cr_assert_eq(crush_map_pg(c, 0, st, 6, 1, s, 3, up), 0);
	/* size is at most CRUSH_MAX_SIZE. */
	crush_free(c);
	free(st);
	c = hosts_map(12, 1, NULL);
	st = all_up(12);
	cr_assert_eq(crush_map_pg(c, 0, st, 12, 1, 0, 15, up), CRUSH_MAX_SIZE);
	/* A class rule whose class no OSD has any more maps nothing. */
	OK(crush_osd_set_class(c, 0, "ssd", &why));
	OK(crush_rule_create(c, "fast", "default", "host", "ssd", &rule, &why));
	cr_assert_eq(crush_map_pg(c, rule, st, 12, 1, 0, 3, up), 1);
	OK(crush_osd_rm_class(c, 0, &why));
	cr_assert_eq(crush_map_pg(c, rule, st, 12, 1, 0, 3, up), 0);
	free(st);
	crush_free(c);
	crush_free(e);
}

Test(crush_place, osd_domain_rule_chooses_distinct_osds)
{
	struct crush *c = hosts_map(2, 5, w_uneven);
	struct crush_osd_state *st = all_up(10);
	struct mapping m;
	uint32_t pg, rule;
	int i, j;

	OK(crush_rule_create(c, "in_h1", "h1", "osd", NULL, &rule, &why));
	m = map_all(c, rule, st, 10, 5000, 3);
	for (pg = 0; pg < m.npg; pg++) {
		cr_assert_eq(m.lens[pg], 3);
		for (i = 0; i < 3; i++) {
			int32_t a = m.sets[(size_t)pg * 3 + i];

			cr_assert(a >= 5 && a < 10, "osd.%d is not in h1", a);
			for (j = i + 1; j < 3; j++)
				cr_assert_neq(a, m.sets[(size_t)pg * 3 + j]);
		}
	}
	mapping_free(&m);
	/*
	 * Six copies of five OSDs: five, unless the attempts run out before
	 * the lightest (0.5 of 6) is drawn.
	 */
	m = map_all(c, rule, st, 10, 1000, 6);
	for (pg = 0, i = 0; pg < m.npg; pg++) {
		cr_assert(m.lens[pg] == 5 || m.lens[pg] == 4);
		i += m.lens[pg] == 5;
	}
	cr_assert_gt(i, 900, "only %d of 1000 sets hold all five", i);
	mapping_free(&m);
	free(st);
	crush_free(c);
}

/*
 * crush_placement_map_pg() is crush_map_pg(), bit for bit, whatever the
 * OSDs' states: its shortcuts only skip attempts that must fail.
 */
Test(crush_place, placement_form_equals_the_function)
{
	struct crush *c = sample_map();
	struct crush_osd_state *st = all_up(24);
	struct crush_placement *pl;
	struct crush_rule_info ri;
	int32_t a[CRUSH_MAX_SIZE], b[CRUSH_MAX_SIZE];
	uint32_t s, round = 0, x = 99;
	size_t k;
	int i, na, nb;

	for (round = 0; round < 12; round++) {
		/* Ever more OSDs down, out or partly in. */
		for (i = 0; i < 24; i++) {
			x = x * 1103515245u + 12345u;
			if ((x >> 16) % 12 < round) {
				switch ((x >> 8) % 3) {
				case 0:
					st[i].up = 0;
					break;
				case 1:
					st[i].reweight = 0;
					break;
				default:
					st[i].reweight = (x >> 4) & 0xffff;
				}
			}
		}
		pl = crush_placement_new(c, st, 24);
		for (k = 0; k < crush_rule_count(c); k++) {
			cr_assert_eq(crush_rule_at(c, k, &ri), 0);
			for (s = 0; s < 1500; s++) {
				na = crush_map_pg(c, ri.id, st, 24, 3, s, 4, a);
				nb = crush_placement_map_pg(pl, ri.id, 3, s, 4,
				    b);
				cr_assert_eq(na, nb,
				    "rule %u PG 3.%x: %d vs %d", ri.id, s, na,
				    nb);
				cr_assert_arr_eq(a, b, (size_t)na * sizeof *a);
			}
		}
		cr_assert_eq(crush_placement_map_pg(pl, 99, 3, 0, 4, b), -1);
		crush_placement_free(pl);
	}
	free(st);
	crush_free(c);
}

Test(crush_place, deterministic_across_copies_and_codecs)
{
	struct crush *c = sample_map(), *d, *e;
	struct crush_osd_state *st = all_up(24);
	struct enc_buf b;
	json_t *j;
	int32_t x[4], y[4], z[4];
	uint32_t s;
	int n;

	b = encoded(c);
	d = crush_decode(b.data, b.len, &(char *){ NULL });
	j = crush_to_json(c);
	e = crush_from_json(j, &(char *){ NULL });
	cr_assert_not_null(d);
	cr_assert_not_null(e);
	st[5].up = 0;
	st[9].reweight = 0x6000;
	for (s = 0; s < 5000; s++) {
		n = crush_map_pg(c, 1, st, 24, 2, s, 4, x);
		cr_assert_eq(crush_map_pg(d, 1, st, 24, 2, s, 4, y), n);
		cr_assert_eq(crush_map_pg(e, 1, st, 24, 2, s, 4, z), n);
		cr_assert_arr_eq(x, y, (size_t)n * sizeof *x);
		cr_assert_arr_eq(x, z, (size_t)n * sizeof *x);
	}
	json_decref(j);
	enc_buf_free(&b);
	free(st);
	crush_free(c);
	crush_free(d);
	crush_free(e);
}

/*
 * The test vectors of mapmon-protocol(7), read from the page itself, so
 * that the page and the function cannot drift apart.
 */

/* The hierarchy of the page's vectors, and its OSDs' states. */
static struct crush *
vector_map(struct crush_osd_state *st)
{
	static const struct {
		int32_t osd;
		double w;
		const char *cls, *rack, *host;
	} o[] = {
		{ 0, 1.0, "hdd", "rack=r0", "host=h0" },
		{ 1, 2.0, "hdd", "rack=r0", "host=h0" },
		{ 2, 0.5, "ssd", "rack=r0", "host=h0" },
		{ 3, 1.0, "hdd", "rack=r0", "host=h1" },
		{ 4, 1.0, "ssd", "rack=r0", "host=h1" },
		{ 5, 3.0, "hdd", "rack=r1", "host=h2" },
		{ 6, 1.0, "ssd", "rack=r1", "host=h2" },
		{ 7, 1.5, "hdd", "rack=r1", "host=h3" },
		{ 8, 1.5, "hdd", "rack=r1", "host=h3" },
		{ 9, 1.0, "ssd", "rack=r1", "host=h3" },
	};
	struct crush *c = crush_new_default();
	size_t i;

	for (i = 0; i < nitems(o); i++) {
		const char *l[2] = { o[i].rack, o[i].host };

		OK(crush_osd_add(c, o[i].osd, o[i].w, l, 2, &why));
		OK(crush_osd_set_class(c, o[i].osd, o[i].cls, &why));
		st[i].up = 1;
		st[i].reweight = CRUSH_WEIGHT_ONE;
	}
	OK(crush_rule_create(c, "by_rack", "default", "rack", NULL, NULL,
	    &why));
	OK(crush_rule_create(c, "fast", "default", "host", "ssd", NULL, &why));
	st[4].up = 0;
	st[7].reweight = 0;
	st[1].reweight = 0x8000;
	/* The ids the page gives. */
	cr_assert_eq(id_of(c, "h0"), -2);
	cr_assert_eq(id_of(c, "r0"), -3);
	cr_assert_eq(id_of(c, "h1"), -4);
	cr_assert_eq(id_of(c, "h2"), -5);
	cr_assert_eq(id_of(c, "r1"), -6);
	cr_assert_eq(id_of(c, "h3"), -7);
	return c;
}

/* The literal lines between the page's vector markers, joined. */
static char **
vector_lines(size_t *n)
{
	const char *top = getenv("top_srcdir");
	char *path, line[512], **lines = NULL;
	FILE *f;
	int in = 0;

	if (top == NULL || *top == '\0')
		top = CRUSH_TEST_SRCDIR;
	xasprintf(&path, "%s/man/mapmon-protocol.7", top);
	f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	*n = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, ".\\\" crush-vectors-begin") == 0) {
			in = 1;
			continue;
		}
		if (strcmp(line, ".\\\" crush-vectors-end") == 0)
			break;
		if (!in || line[0] == '.' || line[strspn(line, " ")] == '\0')
			continue;
		/* A value continued on the next line joins its name. */
		if (line[strspn(line, " ")] == '=' && *n > 0) {
			char *j;

			xasprintf(&j, "%s %s", lines[*n - 1], line);
			free(lines[*n - 1]);
			lines[*n - 1] = j;
			continue;
		}
		lines = xreallocarray(lines, *n + 1, sizeof *lines);
		lines[(*n)++] = xstrdup(line);
	}
	fclose(f);
	cr_assert(in, "no vectors in %s", path);
	free(path);
	return lines;
}

Test(crush_vectors, the_pages_vectors_hold)
{
	struct crush_osd_state st[10];
	struct crush *c = vector_map(st);
	char **lines, rule[64] = "", list[128];
	unsigned long long want, hash;
	unsigned pool, seed, r, size = 0, checked = 0, sets = 0;
	long long want_draw, w;
	int32_t up[CRUSH_MAX_SIZE], item;
	size_t n, i;
	int rid = -1, len, off, k;

	lines = vector_lines(&n);
	for (i = 0; i < n; i++) {
		const char *l = lines[i] + strspn(lines[i], " ");

		if (sscanf(l, "k(%u.%x) = %llx", &pool, &seed, &want) == 3) {
			cr_assert_eq(placement_pgkey(pool, seed), want, "%s",
			    l);
			checked++;
		} else if (sscanf(l, "a(%u.%x, %u) = %llx", &pool, &seed, &r,
			       &want) == 4) {
			cr_assert_eq(crush_attempt_key(pool, seed, r), want,
			    "%s", l);
			checked++;
		} else if (sscanf(l, "h(a(%u.%x, %u), %d) = %llx", &pool, &seed,
			       &r, &item, &want) == 5) {
			cr_assert_eq(
			    crush_item_hash(crush_attempt_key(pool, seed, r),
				item),
			    want, "%s", l);
			checked++;
		} else if (sscanf(l, "draw(%llx, %lld) = %lld", &hash, &w,
			       &want_draw) == 3) {
			cr_assert_eq(crush_draw(hash, (uint64_t)w), want_draw,
			    "%s", l);
			checked++;
		} else if (sscanf(l, "%63[a-z_], size %u:", rule, &size) == 2) {
			rid = crush_rule_id(c, rule);
			cr_assert_geq(rid, 0, "no rule %s", rule);
		} else {
			/* Sets: "POOL.SEED -> [a,b,c]" one or more times. */
			cr_assert_geq(rid, 0, "a set before its rule: %s", l);
			while (sscanf(l, "%u.%x -> [%127[0-9,]]%n", &pool,
				   &seed, list, &off) == 3 ||
			    sscanf(l, "%u.%x -> []%n", &pool, &seed, &off) ==
				2) {
				char got[128] = "";

				if (l[off - 2] == '[')
					list[0] = '\0';
				len = crush_map_pg(c, (uint32_t)rid, st, 10,
				    pool, seed, size, up);
				for (k = 0; k < len; k++)
					snprintf(got + strlen(got),
					    sizeof got - strlen(got), "%s%d",
					    k ? "," : "", up[k]);
				cr_assert_str_eq(got, list,
				    "%s, size %u: %u.%x "
				    "-> [%s], the page says [%s]",
				    rule, size, pool, seed, got, list);
				sets++;
				l += off;
				l += strspn(l, " ");
			}
			cr_assert_eq(*l, '\0', "cannot read '%s'", l);
		}
	}
	cr_assert_geq(checked, 10, "only %u values", checked);
	cr_assert_geq(sets, 25, "only %u sets", sets);
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	crush_free(c);
}

/*
 * Items for the draws: hash offsets as the views make them, weights from
 * one 65536th to 16 and some of 0x10000 exactly; from item d on, each a
 * copy of the one d before (same offset and weight: their draws tie).
 */
static void
draw_items(uint64_t *off, uint64_t *w, double *recip, uint32_t n, uint32_t d)
{
	uint64_t x = 1;
	uint32_t i;

	for (i = 0; i < n; i++) {
		x = placement_mix(x + i);
		if (i >= d) {
			off[i] = off[i - d];
			w[i] = w[i - d];
		} else {
			off[i] = ((uint64_t)i + 1) * PLACEMENT_GOLDEN;
			w[i] = i % 7 == 0 ? 0x10000 : 1 + x % (16 * 0x10000);
		}
		recip[i] = 65536.0 / (double)w[i];
	}
}

/* Ties within eight items, across lanes and in one lane. */
static const uint32_t tie_dists[] = { 4, 300, 304 };

typedef uint32_t draw_fn(uint64_t akey, const uint64_t *off,
    const double *recip, const uint64_t *w, uint32_t n, int scalar);

static uint32_t
equal_draw(uint64_t akey, const uint64_t *off, const double *recip,
    const uint64_t *w, uint32_t n, int scalar)
{
	(void)recip;
	(void)w;
	return crush_equal_best(akey, off, n, scalar);
}

/*
 * draw on eight lanes gives the scalar loop's answer, at bucket sizes
 * across the vector threshold and its tails, and the first of a tie wins.
 */
static void
vector_draw_check(draw_fn *draw)
{
	uint64_t off[600], w[600], akey;
	double recip[600];
	uint32_t n, k, i, t;

	if (!crush_vector_ok())
		cr_skip_test(
		    "this CPU has no AVX-512: only the scalar draw runs");
	draw_items(off, w, recip, 600, 600);
	for (n = 1; n <= 600; n++)
		for (k = 0; k < 200; k++) {
			akey = placement_mix((uint64_t)n << 32 | k);
			cr_assert_eq(draw(akey, off, recip, w, n, 0),
			    draw(akey, off, recip, w, n, 1),
			    "n %u, key %016llx", n, (unsigned long long)akey);
		}
	for (t = 0; t < nitems(tie_dists); t++) {
		draw_items(off, w, recip, 600, tie_dists[t]);
		for (k = 0; k < 2000; k++) {
			akey = placement_mix(k + 1);
			i = draw(akey, off, recip, w, 600, 0);
			cr_assert_eq(i, draw(akey, off, recip, w, 600, 1),
			    "copies %u apart, key %016llx", tie_dists[t],
			    (unsigned long long)akey);
			cr_assert_lt(i, tie_dists[t],
			    "a tie went to a later copy");
		}
	}
}

/* The equal-weight draw (each lane's first largest, then the lowest). */
Test(crush_place, the_vector_draw_equals_the_scalar_one)
{
	vector_draw_check(equal_draw);
}

/*
 * The weighted draw (hashes and first estimates at once, then the exact
 * draws in order).
 */
Test(crush_place, the_vector_weighted_draw_equals_the_scalar_one)
{
	vector_draw_check(crush_weighted_best);
}
