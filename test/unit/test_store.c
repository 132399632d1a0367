/*
 * test_store.c: the store conformance suite.  Compiled once per backend
 * with -DTEST_BACKEND='"lmdb"' or '"leveldb"'; the test list is the same.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "store/store_test.h"

#ifndef TEST_BACKEND
#error "compile with -DTEST_BACKEND='\"lmdb\"' or '\"leveldb\"'"
#endif

#define IS_LMDB (strcmp(TEST_BACKEND, "lmdb") == 0)

static char tmpdir[64];
static char path[128];

static int
rm_one(const char *p, mapmon_unused const struct stat *sb,
    mapmon_unused int flag, mapmon_unused struct FTW *ftw)
{
	return remove(p);
}

static void
setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/mapmon-store-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(path, sizeof path, "%s/store", tmpdir);
}

static void
teardown(void)
{
	nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(store, .init = setup, .fini = teardown);

static struct store_options
test_opts(void)
{
	struct store_options o;

	store_options_defaults(&o);
	o.backend = TEST_BACKEND;
	o.sync = STORE_SYNC_NONE;
	return o;
}

static struct store *
open_opts(const struct store_options *o, int flags)
{
	struct store *s = NULL;
	char *cause = NULL;
	int r;

	r = store_open(path, o, flags, &s, &cause);
	cr_assert_eq(r, 0, "store_open %s: %d %s", path, r,
	    cause ? cause : "");
	return s;
}

static struct store *
create_store(void)
{
	struct store_options o = test_opts();

	return open_opts(&o, STORE_CREATE);
}

static struct store *
reopen_store(void)
{
	struct store_options o = test_opts();

	o.backend = NULL;
	return open_opts(&o, 0);
}

static void
put1(struct store *s, const void *k, size_t klen, const void *v, size_t vlen)
{
	struct store_batch *b = store_batch_new();
	char *cause = NULL;
	int r;

	store_batch_put(b, k, klen, v, vlen);
	r = store_commit(s, b, &cause);
	cr_assert_eq(r, 0, "commit: %d %s", r, cause ? cause : "");
	store_batch_free(b);
}

static void
puts_(struct store *s, const char *k, const char *v)
{
	put1(s, k, strlen(k), v, strlen(v));
}

/* The value of k as a string, or NULL when not found. */
static char *
gets_(struct store *s, const char *k)
{
	void *v;
	size_t vlen;
	char *out, *cause = NULL;
	int r;

	r = store_get(s, k, strlen(k), &v, &vlen, &cause);
	cr_assert(r == 0 || r == STORE_NOTFOUND, "get %s: %d %s", k, r,
	    cause ? cause : "");
	if (r == STORE_NOTFOUND)
		return NULL;
	out = xstrndup(v, vlen);
	cr_assert_eq(strlen(out), vlen);
	free(v);
	return out;
}

static void
assert_value(struct store *s, const char *k, const char *want)
{
	char *got = gets_(s, k);

	if (want == NULL)
		cr_assert_null(got, "key %s: expected absent, got '%s'", k, got);
	else {
		cr_assert_not_null(got, "key %s: expected '%s', absent", k,
		    want);
		cr_assert_str_eq(got, want, "key %s", k);
	}
	free(got);
}

/* Every key in [lo, hi) joined with ',' (string keys only). */
static char *
keys_in(struct store *s, const char *lo, const char *hi)
{
	struct store_iter *it;
	struct enc_buf out = { 0 };
	const void *k, *v;
	size_t klen, vlen;
	char *cause = NULL;
	int r;

	it = store_iter_new(s, lo, lo ? strlen(lo) : 0, hi, hi ? strlen(hi) : 0,
	    &cause);
	cr_assert_not_null(it, "iter: %s", cause ? cause : "");
	while ((r = store_iter_next(it, &k, &klen, &v, &vlen)) == 1) {
		if (out.len > 0)
			enc_buf_put_u8(&out, ',');
		enc_buf_put_bytes(&out, k, klen);
	}
	cr_assert_eq(r, 0);
	store_iter_free(it);
	enc_buf_put_u8(&out, '\0');
	return (char *)out.data;
}

static void
assert_keys(struct store *s, const char *lo, const char *hi, const char *want)
{
	char *got = keys_in(s, lo, hi);

	cr_assert_str_eq(got, want, "keys in [%s, %s)", lo ? lo : "-",
	    hi ? hi : "-");
	free(got);
}

static int64_t
count_records(struct store *s)
{
	struct store_iter *it;
	const void *k, *v;
	size_t klen, vlen;
	int64_t n = 0;

	it = store_iter_new(s, NULL, 0, NULL, 0, NULL);
	cr_assert_not_null(it);
	while (store_iter_next(it, &k, &klen, &v, &vlen) == 1)
		n++;
	store_iter_free(it);
	return n;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Test(store, empty_store)
{
	struct store *s = create_store();
	const void *k, *v;
	size_t klen, vlen;
	struct store_iter *it;

	assert_value(s, "\x01" "a", NULL);
	assert_keys(s, "\x01", NULL, "");
	/* The only record of a new store is the format record. */
	it = store_iter_new(s, NULL, 0, NULL, 0, NULL);
	cr_assert_eq(store_iter_next(it, &k, &klen, &v, &vlen), 1);
	cr_assert_eq(klen, STORE_FORMAT_KEYLEN);
	cr_assert(memcmp(k, STORE_FORMAT_KEY, klen) == 0);
	cr_assert_eq(vlen, 4);
	cr_assert_eq(enc_get_be32(v), STORE_FORMAT);
	cr_assert_eq(store_iter_next(it, &k, &klen, &v, &vlen), 0);
	cr_assert_eq(store_iter_next(it, &k, &klen, &v, &vlen), 0);
	store_iter_free(it);
	cr_assert_str_eq(store_backend_name(s), TEST_BACKEND);
	cr_assert_str_eq(store_detect(path), TEST_BACKEND);
	store_close(s);
}

Test(store, get_put_overwrite_delete)
{
	struct store *s = create_store();
	struct store_batch *b = store_batch_new();

	puts_(s, "\x01k1", "one");
	assert_value(s, "\x01k1", "one");
	puts_(s, "\x01k1", "uno");
	assert_value(s, "\x01k1", "uno");
	puts_(s, "\x01k2", "");
	assert_value(s, "\x01k2", "");
	store_batch_delete(b, "\x01k1", 3);
	store_batch_delete(b, "\x01nothere", 8);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	assert_value(s, "\x01k1", NULL);
	assert_value(s, "\x01k2", "");
	store_batch_free(b);
	store_close(s);
}

Test(store, binary_keys_and_values)
{
	struct store *s = create_store();
	const uint8_t k1[] = { 0x01, 'a' }, k2[] = { 0x01, 'a', 0 },
	    k3[] = { 0x01, 0, 0, 0 }, k4[] = { 0x01, 0xff, 0, 0xfe };
	const uint8_t v[] = { 0, 1, 0, 0xff, 0 };
	void *got;
	size_t glen;

	put1(s, k1, sizeof k1, "x", 1);
	put1(s, k2, sizeof k2, v, sizeof v);
	put1(s, k3, sizeof k3, v, 1);
	put1(s, k4, sizeof k4, v + 1, 3);
	cr_assert_eq(store_get(s, k2, sizeof k2, &got, &glen, NULL), 0);
	cr_assert_eq(glen, sizeof v);
	cr_assert(memcmp(got, v, sizeof v) == 0);
	free(got);
	cr_assert_eq(store_get(s, k1, sizeof k1, &got, &glen, NULL), 0);
	cr_assert_eq(glen, 1);
	cr_assert_eq(*(char *)got, 'x');
	free(got);
	cr_assert_eq(store_get(s, k3, sizeof k3, &got, &glen, NULL), 0);
	cr_assert_eq(glen, 1);
	cr_assert_eq(*(uint8_t *)got, 0);
	free(got);
	cr_assert_eq(store_get(s, k3, 3, &got, &glen, NULL), STORE_NOTFOUND);
	cr_assert_eq(store_get(s, k4, sizeof k4, &got, &glen, NULL), 0);
	cr_assert_eq(glen, 3);
	free(got);
	store_close(s);
}

Test(store, value_sizes)
{
	struct store *s = create_store();
	size_t big = 16u << 20, i, glen, vlen, klen;
	uint8_t *v = xmalloc(big);
	const void *k, *iv;
	struct store_iter *it;
	void *got;

	for (i = 0; i < big; i++)
		v[i] = (uint8_t)(i * 7 + i / 251);
	put1(s, "\x01small", 6, "z", 1);
	put1(s, "\x01zero", 5, "", 0);
	put1(s, "\x01" "big", 4, v, big);
	cr_assert_eq(store_get(s, "\x01" "big", 4, &got, &glen, NULL), 0);
	cr_assert_eq(glen, big);
	cr_assert(memcmp(got, v, big) == 0);
	free(got);
	cr_assert_eq(store_get(s, "\x01small", 6, &got, &glen, NULL), 0);
	cr_assert_eq(glen, 1);
	free(got);
	cr_assert_eq(store_get(s, "\x01zero", 5, &got, &glen, NULL), 0);
	cr_assert_eq(glen, 0);
	cr_assert_not_null(got);
	free(got);
	it = store_iter_new(s, "\x01", 1, NULL, 0, NULL);
	cr_assert_eq(store_iter_next(it, &k, &klen, &iv, &vlen), 1);
	cr_assert_eq(vlen, big);
	cr_assert(memcmp(iv, v, big) == 0);
	store_iter_free(it);
	store_close(s);
	s = reopen_store();
	cr_assert_eq(store_get(s, "\x01" "big", 4, &got, &glen, NULL), 0);
	cr_assert_eq(glen, big);
	cr_assert(memcmp(got, v, big) == 0);
	free(got);
	store_close(s);
	free(v);
}

Test(store, key_limits)
{
	struct store *s = create_store();
	struct store_batch *b = store_batch_new();
	uint8_t k[STORE_KEY_MAX + 1];
	char *cause = NULL;
	void *v;
	size_t vlen;

	memset(k, 0x01, sizeof k);
	store_batch_put(b, k, STORE_KEY_MAX, "max", 3);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	assert_value(s, "\x01", NULL);
	cr_assert_eq(store_get(s, k, STORE_KEY_MAX, &v, &vlen, NULL), 0);
	free(v);
	cr_assert_eq(store_get(s, k, 0, &v, &vlen, &cause), STORE_E_INVAL);
	cr_assert_not_null(strstr(cause, "empty key"), "%s", cause);
	free(cause);
	store_batch_clear(b);
	store_batch_put(b, k, STORE_KEY_MAX + 1, "over", 4);
	cr_assert_eq(store_commit(s, b, &cause), STORE_E_INVAL);
	cr_assert_not_null(strstr(cause, "longer than 511"), "%s", cause);
	free(cause);
	store_batch_free(b);
	store_close(s);
}

Test(store, batch_atomicity)
{
	struct store *s = create_store(), *f;
	struct store_batch *b = store_batch_new();
	uint8_t longkey[STORE_KEY_MAX + 10];
	char k[32], *cause = NULL;
	int i;

	puts_(s, "\x01keep", "old");
	for (i = 0; i < 100; i++) {
		snprintf(k, sizeof k, "\x01n%03d", i);
		store_batch_put(b, k, strlen(k), "v", 1);
	}
	store_batch_delete(b, "\x01keep", 5);
	memset(longkey, 0x02, sizeof longkey);
	store_batch_put(b, longkey, sizeof longkey, "v", 1);
	cr_assert_eq(store_batch_count(b), 102);
	cr_assert_eq(store_commit(s, b, &cause), STORE_E_INVAL);
	free(cause);
	assert_keys(s, "\x01", NULL, "\x01keep");

	/* An injected failure at commit leaves nothing either. */
	store_batch_clear(b);
	cr_assert_eq(store_batch_count(b), 0);
	store_batch_put(b, "\x01x", 2, "1", 1);
	store_batch_delete(b, "\x01keep", 5);
	f = store_fault_wrap(s);
	cr_assert_eq(store_fault_arm(f, STORE_E_IO, 1), 0);
	cr_assert_eq(store_commit(f, b, &cause), STORE_E_IO);
	cr_assert_not_null(strstr(cause, "injected"));
	free(cause);
	assert_keys(f, "\x01", NULL, "\x01keep");
	/* The same batch, reused, then goes through whole. */
	cr_assert_eq(store_commit(f, b, NULL), 0);
	assert_keys(f, "\x01", NULL, "\x01x");
	store_batch_free(b);
	store_close(f);
}

Test(store, batch_order_later_wins)
{
	struct store *s = create_store();
	struct store_batch *b = store_batch_new();

	puts_(s, "\x01" "a", "stored");
	puts_(s, "\x01" "d", "stored");
	store_batch_put(b, "\x01" "b", 2, "early", 5);		/* range kills it */
	store_batch_put(b, "\x01" "c", 2, "first", 5);
	store_batch_put(b, "\x01" "c", 2, "second", 6);	/* overwrites */
	store_batch_delete_range(b, "\x01" "a", 2, "\x01" "c", 2);
	store_batch_put(b, "\x01" "a", 2, "late", 4);		/* after range */
	store_batch_put(b, "\x01" "e", 2, "gone", 4);
	store_batch_delete(b, "\x01" "e", 2);
	store_batch_delete(b, "\x01" "d", 2);
	store_batch_put(b, "\x01" "d", 2, "back", 4);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	assert_value(s, "\x01" "a", "late");
	assert_value(s, "\x01" "b", NULL);
	assert_value(s, "\x01" "c", "second");
	assert_value(s, "\x01" "d", "back");
	assert_value(s, "\x01" "e", NULL);
	store_batch_free(b);
	store_close(s);
}

/*
 * A large batch in no key order, of puts, overwrites, deletes and range
 * deletes, as a commit of PG records spread over a table is (LMDB applies
 * each run between range deletes in key order): the store ends as a model
 * that applied the same operations one by one says, over three commits on
 * top of each other.
 */
Test(store, large_unordered_batches_match_a_model)
{
	enum { NKEYS = 4000, NOPS = 20000 };
	static char model[NKEYS][16]; /* "" absent */
	struct store *s = create_store();
	struct store_batch *b = store_batch_new();
	unsigned int seed = 7;
	char k[16], lo[16], hi[16], *got;
	int round, i, j, key, a, z;

	for (round = 0; round < 3; round++) {
		store_batch_clear(b);
		for (i = 0; i < NOPS; i++) {
			key = (int)(rand_r(&seed) % NKEYS);
			snprintf(k, sizeof k, "\x01k%05d", key);
			switch (rand_r(&seed) % 50) {
			case 0: /* a range delete of up to 40 keys */
				a = key;
				z = a + (int)(rand_r(&seed) % 40);
				if (z > NKEYS)
					z = NKEYS;
				snprintf(lo, sizeof lo, "\x01k%05d", a);
				snprintf(hi, sizeof hi, "\x01k%05d", z);
				store_batch_delete_range(b, lo, strlen(lo), hi,
				    strlen(hi));
				for (j = a; j < z; j++)
					model[j][0] = '\0';
				break;
			case 1:
			case 2:
			case 3:
			case 4:
			case 5:
				store_batch_delete(b, k, strlen(k));
				model[key][0] = '\0';
				break;
			default:
				snprintf(model[key], sizeof model[key],
				    "r%d.%d", round, i);
				store_batch_put(b, k, strlen(k), model[key],
				    strlen(model[key]));
			}
		}
		cr_assert_eq(store_commit(s, b, NULL), 0);
		for (key = 0; key < NKEYS; key++) {
			snprintf(k, sizeof k, "\x01k%05d", key);
			got = gets_(s, k);
			if (model[key][0] == '\0')
				cr_assert_null(got,
				    "round %d, key %d: '%s', "
				    "expected absent",
				    round, key, got);
			else
				cr_assert(got != NULL &&
					strcmp(got, model[key]) == 0,
				    "round %d, key %d: '%s', expected '%s'",
				    round, key, got ? got : "(absent)",
				    model[key]);
			free(got);
		}
	}
	store_batch_free(b);
	store_close(s);
}

/* store_value_fn for the tests: arg is a string; counts its calls. */
static int value_calls;

static void
value_str(const void *arg, struct enc_buf *out)
{
	value_calls++;
	enc_buf_put_bytes(out, arg, strlen(arg));
}

/* A 64 KiB value, every byte the first byte of the key held by arg. */
static void
value_big(const void *arg, struct enc_buf *out)
{
	value_calls++;
	memset(enc_buf_reserve(out, 65536), *(const char *)arg, 65536);
	out->len += 65536;
}

Test(store, batch_put_fn)
{
	struct store *s = create_store();
	struct store_batch *b = store_batch_new();
	char *cause = NULL;
	int r;

	puts_(s, "\x01" "z", "stored");
	value_calls = 0;
	store_batch_put_fn(b, "\x01" "a", 2, 5, value_str, "lazy1");
	store_batch_put(b, "\x01" "b", 2, "copied", 6);
	store_batch_put_fn(b, "\x01" "c", 2, 5, value_str, "early");
	store_batch_delete_range(b, "\x01" "c", 2, "\x01" "d", 2);
	store_batch_put_fn(b, "\x01" "d", 2, 0, value_str, "");
	store_batch_put_fn(b, "\x01" "e", 2, 5, value_str, "first");
	store_batch_put(b, "\x01" "e", 2, "second", 6);	/* later wins */
	store_batch_put(b, "\x01" "f", 2, "first", 5);
	store_batch_put_fn(b, "\x01" "f", 2, 6, value_str, "second");
	store_batch_put_fn(b, "\x01" "z", 2, 4, value_str, "lazy");
	store_batch_delete_range(b, "\x01" "y", 2, NULL, 0);	/* kills z */
	cr_assert_eq(store_batch_count(b), 11);
	/*
	 * Keys and range bounds, copied values and the declared sizes of the
	 * others.
	 */
	cr_assert_eq(store_batch_bytes(b), 9 * 2 + (2 + 2) + 2 +
	    (6 + 6 + 5) + (5 + 5 + 0 + 5 + 6 + 4));
	/* Nothing is written until the commit. */
	cr_assert_eq(value_calls, 0);
	r = store_commit(s, b, &cause);
	cr_assert_eq(r, 0, "commit: %d %s", r, cause ? cause : "");
	cr_assert_geq(value_calls, 6);
	assert_value(s, "\x01" "a", "lazy1");
	assert_value(s, "\x01" "b", "copied");
	assert_value(s, "\x01" "c", NULL);
	assert_value(s, "\x01" "d", "");
	assert_value(s, "\x01" "e", "second");
	assert_value(s, "\x01" "f", "second");
	assert_value(s, "\x01" "z", NULL);

	/* A bad key fails the batch before any value is written. */
	store_batch_clear(b);
	cr_assert_eq(store_batch_bytes(b), 0);
	value_calls = 0;
	store_batch_put_fn(b, "\x01" "g", 2, 5, value_str, "never");
	store_batch_put_fn(b, "", 0, 5, value_str, "never");
	r = store_commit(s, b, &cause);
	cr_assert_eq(r, STORE_E_INVAL);
	free(cause);
	cr_assert_eq(value_calls, 0);
	assert_value(s, "\x01" "g", NULL);
	store_batch_free(b);
	store_close(s);
}

/*
 * A full LMDB map is grown and the batch tried again: the values written
 * at commit are written again, whole.
 */
Test(store, batch_put_fn_map_growth)
{
	struct store_options o = test_opts();
	struct store_batch *b = store_batch_new();
	struct store *s;
	static const char *keys[] = { "\x01" "a", "\x01" "b",
	    "\x01" "c", "\x01" "d" };
	char k[32], *cause = NULL;
	void *v;
	size_t vlen, j;
	int i, r, n = 64;

	o.lmdb.map_size = 1 << 20;
	s = open_opts(&o, STORE_CREATE);
	value_calls = 0;
	for (i = 0; i < n; i++) {
		snprintf(k, sizeof k, "%s%03d", keys[i % 4], i);
		store_batch_put_fn(b, k, strlen(k), 65536, value_big,
		    keys[i % 4] + 1);
	}
	r = store_commit(s, b, &cause);
	cr_assert_eq(r, 0, "commit: %d %s", r, cause ? cause : "");
	/* 4 MiB of values in a 1 MiB map: LMDB wrote them more than once. */
	if (IS_LMDB)
		cr_assert_gt(value_calls, n, "%d calls", value_calls);
	else
		cr_assert_eq(value_calls, n);
	cr_assert_eq(count_records(s), n + 1);
	for (i = 0; i < n; i++) {
		snprintf(k, sizeof k, "%s%03d", keys[i % 4], i);
		cr_assert_eq(store_get(s, k, strlen(k), &v, &vlen, NULL), 0);
		cr_assert_eq(vlen, 65536);
		for (j = 0; j < vlen; j++)
			cr_assert_eq(((uint8_t *)v)[j], keys[i % 4][1],
			    "%s byte %zu", k, j);
		free(v);
	}
	store_batch_free(b);
	store_close(s);
}

static void
fill_k(struct store *s)
{
	struct store_batch *b = store_batch_new();
	char k[32];
	int i;

	for (i = 0; i < 10; i++) {
		snprintf(k, sizeof k, "\x01k%d", i);
		store_batch_put(b, k, strlen(k), "v", 1);
	}
	cr_assert_eq(store_commit(s, b, NULL), 0);
	store_batch_free(b);
}

Test(store, delete_range_bounds)
{
	struct store *s = create_store();
	struct store_batch *b = store_batch_new();

	fill_k(s);
	store_batch_delete_range(b, "\x01k3", 3, "\x01k7", 3);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	assert_keys(s, "\x01", NULL,
	    "\x01k0,\x01k1,\x01k2,\x01k7,\x01k8,\x01k9");
	/* Bounds between keys. */
	store_batch_clear(b);
	store_batch_delete_range(b, "\x01k0a", 4, "\x01k2", 3);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	assert_keys(s, "\x01", NULL, "\x01k0,\x01k2,\x01k7,\x01k8,\x01k9");
	/* Empty and inverted ranges delete nothing. */
	store_batch_clear(b);
	store_batch_delete_range(b, "\x01k7", 3, "\x01k7", 3);
	store_batch_delete_range(b, "\x01k9", 3, "\x01k2", 3);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	assert_keys(s, "\x01", NULL, "\x01k0,\x01k2,\x01k7,\x01k8,\x01k9");
	/* Open upper end. */
	store_batch_clear(b);
	store_batch_delete_range(b, "\x01k8", 3, NULL, 0);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	assert_keys(s, "\x01", NULL, "\x01k0,\x01k2,\x01k7");
	/* Open lower end: everything below k7, the format record too. */
	store_batch_clear(b);
	store_batch_delete_range(b, NULL, 0, "\x01k7", 3);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	assert_keys(s, NULL, NULL, "\x01k7");
	store_batch_free(b);
	store_close(s);
}

Test(store, iteration_order_and_bounds)
{
	struct store *s = create_store();
	const char *keys[] = { "\x01m", "\x01" "b", "\x01z", "\x01" "a",
		"\x01" "ab", "\x01" "b0", "\x02", "\x01" "aa" };
	const uint8_t nul[] = { 0x01, 'a', 0 };
	size_t i;

	for (i = 0; i < nitems(keys); i++)
		puts_(s, keys[i], "v");
	put1(s, nul, sizeof nul, "v", 1);
	/* Bytewise order; a prefix sorts first. */
	assert_keys(s, "\x01", NULL,
	    "\x01" "a,\x01" "a\0,\x01" "aa,\x01" "ab,\x01" "b,\x01" "b0,"
	    "\x01m,\x01z,\x02");
	assert_keys(s, "\x01" "aa", "\x01" "b0", "\x01" "aa,\x01" "ab,\x01" "b");
	/* lo is included, hi excluded, bounds between keys. */
	assert_keys(s, "\x01" "ab", "\x01m", "\x01" "ab,\x01" "b,\x01" "b0");
	assert_keys(s, "\x01" "ac", "\x01" "b1", "\x01" "b,\x01" "b0");
	/* Empty, equal and inverted ranges. */
	assert_keys(s, "\x01m", "\x01m", "");
	assert_keys(s, "\x01n", "\x01y", "");
	assert_keys(s, "\x01z", "\x01" "a", "");
	assert_keys(s, "\x03", NULL, "");
	assert_keys(s, "\x01z", NULL, "\x01z,\x02");
	assert_keys(s, NULL, "\x01" "a", "\x00" "format");
	store_close(s);
}

Test(store, snapshot_isolation)
{
	struct store *s = create_store();
	struct store_batch *b = store_batch_new();
	struct store_iter *it, *it2;
	const void *k, *v;
	size_t klen, vlen;
	char key[32], val[32];
	int i, n = 0;

	for (i = 0; i < 100; i++) {
		snprintf(key, sizeof key, "\x01%04d", i);
		snprintf(val, sizeof val, "old%d", i);
		store_batch_put(b, key, strlen(key), val, strlen(val));
	}
	cr_assert_eq(store_commit(s, b, NULL), 0);
	it = store_iter_new(s, "\x01", 1, "\x02", 1, NULL);
	for (i = 0; i < 10; i++)
		cr_assert_eq(store_iter_next(it, &k, &klen, &v, &vlen), 1);
	n = 10;
	/* Rewrite everything while the iterator is open. */
	store_batch_clear(b);
	store_batch_delete_range(b, "\x01", 1, "\x02", 1);
	for (i = 0; i < 100; i += 2) {
		snprintf(key, sizeof key, "\x01%04d", i);
		store_batch_put(b, key, strlen(key), "new", 3);
	}
	store_batch_put(b, "\x01zzz", 4, "new", 3);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	while (store_iter_next(it, &k, &klen, &v, &vlen) == 1) {
		snprintf(key, sizeof key, "\x01%04d", n);
		snprintf(val, sizeof val, "old%d", n);
		cr_assert_eq(klen, strlen(key));
		cr_assert(memcmp(k, key, klen) == 0);
		cr_assert_eq(vlen, strlen(val));
		cr_assert(memcmp(v, val, vlen) == 0, "record %d changed", n);
		n++;
	}
	cr_assert_eq(n, 100);
	store_iter_free(it);
	it2 = store_iter_new(s, "\x01", 1, "\x02", 1, NULL);
	n = 0;
	while (store_iter_next(it2, &k, &klen, &v, &vlen) == 1) {
		cr_assert_eq(vlen, 3);
		n++;
	}
	cr_assert_eq(n, 51);
	store_iter_free(it2);
	store_batch_free(b);
	store_close(s);
}

/* A writer thread commits pairs of equal counters while the test reads. */
struct pair_writer {
	struct store *s;
	int rounds;
	int error;
};

static void *
pair_writer_main(void *arg)
{
	struct pair_writer *w = arg;
	struct store_batch *b = store_batch_new();
	uint8_t val[2048], key[5];
	int i;

	memset(val, 0xab, sizeof val);
	for (i = 1; i <= w->rounds && w->error == 0; i++) {
		store_batch_clear(b);
		enc_put_be32(val, (uint32_t)i);
		key[0] = 0x03;
		enc_put_be32(key + 1, (uint32_t)i);
		store_batch_put(b, "\x01p1", 3, val, sizeof val);
		store_batch_put(b, "\x01p2", 3, val, sizeof val);
		/* The store grows too, so the LMDB map has to. */
		store_batch_put(b, key, sizeof key, val, 1024);
		w->error = store_commit(w->s, b, NULL);
	}
	store_batch_free(b);
	return NULL;
}

Test(store, reader_while_committer_writes)
{
	struct store_options o = test_opts();
	struct pair_writer w;
	struct store_stats st;
	struct store_iter *it;
	const void *k, *v;
	size_t klen, vlen;
	uint32_t seen[2];
	pthread_t t;
	void *g;
	int reads = 0, n;

	/* A small LMDB map grows while this thread keeps reading. */
	o.lmdb.map_size = 256 << 10;
	w.s = open_opts(&o, STORE_CREATE);
	w.rounds = 3000;
	w.error = 0;
	put1(w.s, "\x01p1", 3, "\0\0\0\0", 4);
	put1(w.s, "\x01p2", 3, "\0\0\0\0", 4);
	cr_assert_eq(pthread_create(&t, NULL, pair_writer_main, &w), 0);
	for (;;) {
		it = store_iter_new(w.s, "\x01p", 2, "\x01q", 3, NULL);
		n = 0;
		while (store_iter_next(it, &k, &klen, &v, &vlen) == 1 && n < 2)
			seen[n++] = enc_get_be32(v);
		store_iter_free(it);
		cr_assert_eq(n, 2);
		cr_assert_eq(seen[0], seen[1], "torn snapshot: %u vs %u",
		    seen[0], seen[1]);
		cr_assert_eq(store_get(w.s, "\x01p1", 3, &g, &vlen, NULL), 0);
		free(g);
		reads++;
		if (seen[0] == (uint32_t)w.rounds || w.error != 0)
			break;
	}
	pthread_join(t, NULL);
	cr_assert_eq(w.error, 0);
	cr_assert_gt(reads, 1);
	cr_assert_eq(store_stat(w.s, &st, NULL), 0);
	if (IS_LMDB)
		cr_assert_gt(st.map_grown, 0);
	store_stats_free(&st);
	store_close(w.s);
}

Test(store, persistence_across_reopen)
{
	struct store_options o = test_opts();
	struct store *s;
	char k[32], v[32];
	int i;

	o.sync = STORE_SYNC_COMMIT;
	s = open_opts(&o, STORE_CREATE);
	for (i = 0; i < 50; i++) {
		snprintf(k, sizeof k, "\x01r%02d", i);
		snprintf(v, sizeof v, "value %d", i);
		puts_(s, k, v);
	}
	store_close(s);
	o.backend = NULL;
	s = open_opts(&o, 0);
	for (i = 0; i < 50; i++) {
		snprintf(k, sizeof k, "\x01r%02d", i);
		snprintf(v, sizeof v, "value %d", i);
		assert_value(s, k, v);
	}
	cr_assert_eq(count_records(s), 51);
	store_close(s);
}

Test(store, scan_200k, .timeout = 120)
{
	struct store *s = create_store();
	struct store_batch *b = store_batch_new();
	struct store_iter *it;
	struct store_key key;
	const void *k, *v;
	size_t klen, vlen;
	uint8_t val[400];
	uint64_t i, n = 0, bytes = 0;
	double t0, t;
	int r;

	memset(val, 0x5a, sizeof val);
	for (i = 0; i < 200000; i++) {
		store_key_init(&key, 0x10);
		store_key_u64(&key, i * 7919 % 200000);
		enc_put_be64(val, i * 7919 % 200000);
		store_batch_put(b, key.data, key.len, val, sizeof val);
		if (store_batch_count(b) == 20000) {
			cr_assert_eq(store_commit(s, b, NULL), 0);
			store_batch_clear(b);
		}
	}
	store_batch_free(b);
	store_close(s);
	s = reopen_store();
	t0 = now();
	it = store_iter_new(s, "\x10", 1, "\x11", 1, NULL);
	while ((r = store_iter_next(it, &k, &klen, &v, &vlen)) == 1) {
		cr_assert_eq(klen, 9);
		if (enc_get_be64((const uint8_t *)k + 1) != n ||
		    enc_get_be64(v) != n)
			cr_assert_fail("record %" PRIu64 " out of order", n);
		bytes += klen + vlen;
		n++;
	}
	t = now() - t0;
	store_iter_free(it);
	cr_assert_eq(r, 0);
	cr_assert_eq(n, 200000);
	cr_log_info("%s: scanned %" PRIu64 " records, %" PRIu64 " bytes in "
	    "%.3f s (%.0f MB/s)", TEST_BACKEND, n, bytes, t, bytes / t / 1e6);
	fprintf(stderr, "%s: scan of 200000 records: %.3f s\n", TEST_BACKEND,
	    t);
	store_close(s);
}

Test(store, lmdb_map_growth)
{
	struct store_options o = test_opts();
	struct store_batch *b = store_batch_new();
	struct store_stats st;
	struct store *s;
	uint8_t *v = xcalloc(1, 1 << 20);
	char k[32], *cause = NULL;
	int i, r;

	o.lmdb.map_size = 1 << 20;
	s = open_opts(&o, STORE_CREATE);
	for (i = 0; i < 8; i++) {
		snprintf(k, sizeof k, "\x01g%d", i);
		v[0] = (uint8_t)i;
		put1(s, k, strlen(k), v, 1 << 20);
	}
	cr_assert_eq(count_records(s), 9);
	cr_assert_eq(store_stat(s, &st, NULL), 0);
	if (IS_LMDB) {
		cr_assert_gt(st.map_size, 8u << 20, "map %" PRIu64,
		    st.map_size);
		cr_assert_gt(st.map_grown, 0);
		cr_assert_eq(st.records, 9);
	}
	store_stats_free(&st);
	store_close(s);

	/* With growth off a full map fails the batch, leaving nothing. */
	o.lmdb.grow = 0;
	o.backend = NULL;
	s = open_opts(&o, 0);
	for (i = 0; i < 40; i++) {
		snprintf(k, sizeof k, "\x01h%d", i);
		store_batch_put(b, k, strlen(k), v, 1 << 20);
	}
	r = store_commit(s, b, &cause);
	if (IS_LMDB) {
		cr_assert_eq(r, STORE_E_MAPFULL, "%d %s", r, cause);
		cr_assert_not_null(strstr(cause, "map full"), "%s", cause);
		free(cause);
		assert_keys(s, "\x01h", "\x01i", "");
		cr_assert_eq(count_records(s), 9);
	} else {
		cr_assert_eq(r, 0);
		cr_assert_eq(count_records(s), 49);
	}
	store_batch_free(b);
	store_close(s);
	free(v);
}

/* Bytes of path's file allocated on disk. */
static uint64_t
disk_bytes(const char *file)
{
	struct stat sb;

	cr_assert_eq(stat(file, &sb), 0, "%s: %s", file, strerror(errno));
	return (uint64_t)sb.st_blocks * 512;
}

/*
 * writemap (MDB_WRITEMAP): the map is allocated on disk at open and before
 * it grows, so that a commit never writes into a hole the filesystem
 * cannot fill (a SIGBUS); records survive growth and a reopen without it.
 */
Test(store, lmdb_writemap_allocates_the_map)
{
	struct store_options o = test_opts();
	struct store_stats st;
	struct store *s;
	uint8_t *v;
	char k[32], file[192];
	int i;

	if (!IS_LMDB)
		cr_skip_test("LMDB only");
	v = xcalloc(1, 1 << 20);
	snprintf(file, sizeof file, "%s/data.mdb", path);
	o.lmdb.map_size = 2 << 20;
	o.lmdb.writemap = 1;
	s = open_opts(&o, STORE_CREATE);
	cr_assert_geq(disk_bytes(file), 2u << 20, "%" PRIu64, disk_bytes(file));
	for (i = 0; i < 6; i++) {
		snprintf(k, sizeof k, "\x01w%d", i);
		v[0] = (uint8_t)i;
		put1(s, k, strlen(k), v, 1 << 20);
	}
	cr_assert_eq(store_stat(s, &st, NULL), 0);
	cr_assert_gt(st.map_grown, 0);
	cr_assert_geq(disk_bytes(file), st.map_size, "%" PRIu64 " < %" PRIu64,
	    disk_bytes(file), st.map_size);
	store_stats_free(&st);
	store_close(s);

	o.lmdb.writemap = 0;
	o.backend = NULL;
	s = open_opts(&o, 0);
	cr_assert_eq(count_records(s), 7);
	store_close(s);
	free(v);
}

Test(store, double_open_refused)
{
	struct store_options o = test_opts();
	struct store *s = create_store(), *s2 = NULL;
	char *cause = NULL, want[64];
	int r;

	o.backend = NULL;
	r = store_open(path, &o, 0, &s2, &cause);
	cr_assert_eq(r, STORE_E_LOCKED);
	cr_assert_null(s2);
	snprintf(want, sizeof want, "in use by process %ld", (long)getpid());
	cr_assert_not_null(strstr(cause, want), "%s", cause);
	cr_assert_not_null(strstr(cause, path), "%s", cause);
	free(cause);
	store_close(s);
	s2 = open_opts(&o, 0);
	store_close(s2);
}

Test(store, locked_for_a_forked_child)
{
	struct store *s = create_store();
	int status, fds[2];
	char buf[256] = "", want[64];
	ssize_t n;
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct store_options o = test_opts();
		struct store *s2;
		char *cause = NULL;
		int r;

		o.backend = NULL;
		r = store_open(path, &o, 0, &s2, &cause);
		if (cause != NULL)
			(void)!write(fds[1], cause, strlen(cause));
		_exit(r == STORE_E_LOCKED ? 0 : 1);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", buf);
	snprintf(want, sizeof want, "store is in use by process %ld",
	    (long)getpid());
	cr_assert_not_null(strstr(buf, want), "%s", buf);
	/* The parent's store still works. */
	puts_(s, "\x01" "after", "fork");
	assert_value(s, "\x01" "after", "fork");
	store_close(s);
}

Test(store, newer_format_refused)
{
	struct store_options o = test_opts();
	struct store *s = create_store(), *s2 = NULL;
	uint8_t v[4];
	char *cause = NULL;

	enc_put_be32(v, STORE_FORMAT + 1);
	put1(s, STORE_FORMAT_KEY, STORE_FORMAT_KEYLEN, v, 4);
	store_close(s);
	o.backend = NULL;
	cr_assert_eq(store_open(path, &o, 0, &s2, &cause), STORE_E_VERSION);
	cr_assert_null(s2);
	cr_assert_not_null(strstr(cause,
	    "store format 2 is newer than this mapmon supports (1)"), "%s",
	    cause);
	free(cause);
}

Test(store, corrupt_record_named_by_key)
{
	struct store_options o = test_opts();
	struct store *s = create_store(), *s2 = NULL;
	char *cause = NULL;

	put1(s, STORE_FORMAT_KEY, STORE_FORMAT_KEYLEN, "\0\0\1", 3);
	store_close(s);
	o.backend = NULL;
	cr_assert_eq(store_open(path, &o, 0, &s2, &cause), STORE_E_CORRUPT);
	cr_assert_null(s2);
	cr_assert_not_null(strstr(cause, "corrupt record \\x00format"), "%s",
	    cause);
	cr_assert_not_null(strstr(cause, "3 bytes, expected 4"), "%s", cause);
	free(cause);
	cr_assert_eq(store_key_corrupt(&cause, NULL, "\x01pg\xff", 4, "short"),
	    STORE_E_CORRUPT);
	cr_assert_str_eq(cause, "corrupt record \\x01pg\\xff: short");
	free(cause);
	cr_assert_eq(store_key_corrupt(&cause, "/d", "\x01", 1, "%d bytes", 3),
	    STORE_E_CORRUPT);
	cr_assert_str_eq(cause, "/d: corrupt record \\x01: 3 bytes");
	free(cause);
	cr_assert_eq(store_key_corrupt(NULL, "/d", "\x01", 1, "x"),
	    STORE_E_CORRUPT);
}

Test(store, missing_store)
{
	struct store_options o = test_opts();
	struct store *s = NULL;
	char *cause = NULL;

	cr_assert_eq(store_open(path, &o, 0, &s, &cause), STORE_E_MISSING);
	cr_assert_null(s);
	cr_assert_not_null(strstr(cause, path));
	free(cause);
	/* An empty directory is no store either. */
	cr_assert_eq(mkdir(path, 0700), 0);
	cr_assert_eq(store_open(path, &o, 0, &s, &cause), STORE_E_MISSING);
	free(cause);
	cr_assert_null(store_detect(path));
	s = create_store();
	store_close(s);
	cr_assert_eq(store_open(path, &o, STORE_CREATE, &s, &cause),
	    STORE_E_EXISTS);
	free(cause);
	cr_assert_eq(store_open(tmpdir, &o, 0, &s, &cause), STORE_E_MISSING);
	free(cause);
}

Test(store, backend_names)
{
	struct store_options o = test_opts();
	struct store *s = NULL;
	char *cause = NULL;

	cr_assert(store_backend_known(TEST_BACKEND));
	cr_assert_not(store_backend_known("sqlite"));
	cr_assert_not_null(strstr(store_backend_names(), TEST_BACKEND));
	o.backend = "rocksdb";
	cr_assert_eq(store_open(path, &o, STORE_CREATE, &s, &cause),
	    STORE_E_INVAL);
	cr_assert_not_null(strstr(cause, "unknown store backend 'rocksdb'"));
	cr_assert_not_null(strstr(cause, store_backend_names()));
	free(cause);
	cr_assert_null(store_detect(path));
	/* The configured backend must be the store's own. */
	s = create_store();
	store_close(s);
	o.backend = IS_LMDB ? "leveldb" : "lmdb";
	cr_assert_eq(store_open(path, &o, 0, &s, &cause), STORE_E_INVAL);
	cr_assert_not_null(strstr(cause, "the store is " TEST_BACKEND),
	    "%s", cause);
	free(cause);
	cr_assert_str_eq(store_strerror(STORE_E_NOSPC),
	    "no space left on device");
	cr_assert_str_eq(store_strerror(STORE_NOTFOUND), "not found");
}

static void
count_progress(uint64_t done, mapmon_unused int64_t total, void *arg)
{
	uint64_t *last = arg;

	cr_assert_gt(done, *last);
	*last = done;
}

Test(store, copy_to_the_other_backend)
{
	struct store_options o = test_opts();
	struct store *s = create_store(), *d, *d2;
	struct store_batch *b = store_batch_new();
	struct store_iter *a, *c;
	const void *k1, *v1, *k2, *v2;
	size_t k1len, v1len, k2len, v2len;
	char dpath[160], d2path[160];
	uint8_t key[9], val[300];
	uint64_t last = 0;
	int i, r1, r2, n = 0;

	for (i = 0; i < 30000; i++) {
		key[0] = 0x20;
		enc_put_be64(key + 1, (uint64_t)i);
		memset(val, i & 0xff, sizeof val);
		store_batch_put(b, key, sizeof key, val, (size_t)(i % 300));
	}
	cr_assert_eq(store_commit(s, b, NULL), 0);
	store_batch_free(b);
	snprintf(dpath, sizeof dpath, "%s/dst", tmpdir);
	snprintf(d2path, sizeof d2path, "%s/dst2", tmpdir);
	o.backend = IS_LMDB ? "leveldb" : "lmdb";
	cr_assert_eq(store_open(dpath, &o, STORE_CREATE, &d, NULL), 0);
	cr_assert_eq(store_copy(s, d, count_progress, &last, NULL), 0);
	cr_assert_eq(last, 30001);
	o.backend = TEST_BACKEND;
	cr_assert_eq(store_open(d2path, &o, STORE_CREATE, &d2, NULL), 0);
	cr_assert_eq(store_copy(d, d2, NULL, NULL, NULL), 0);
	a = store_iter_new(s, NULL, 0, NULL, 0, NULL);
	c = store_iter_new(d2, NULL, 0, NULL, 0, NULL);
	for (;;) {
		r1 = store_iter_next(a, &k1, &k1len, &v1, &v1len);
		r2 = store_iter_next(c, &k2, &k2len, &v2, &v2len);
		cr_assert_eq(r1, r2);
		if (r1 != 1)
			break;
		cr_assert_eq(store_key_cmp(k1, k1len, k2, k2len), 0);
		cr_assert_eq(v1len, v2len);
		cr_assert(v1len == 0 || memcmp(v1, v2, v1len) == 0);
		n++;
	}
	cr_assert_eq(n, 30001);
	store_iter_free(a);
	store_iter_free(c);
	store_close(d2);
	store_close(d);
	store_close(s);
}

Test(store, fault_wrapper)
{
	struct store *s = create_store(), *f;
	struct store_batch *b = store_batch_new();
	struct store_iter *it;
	const void *k, *v;
	size_t klen, vlen, mput, mread;
	uint8_t big[5000] = { 0 };
	uint64_t failed;
	char *cause = NULL;
	void *g;
	int i;

	cr_assert_eq(store_fault_arm(s, STORE_E_IO, 1), STORE_E_INVAL);
	f = store_fault_wrap(s);
	store_batch_put(b, "\x01" "a", 2, big, sizeof big);
	store_batch_put(b, "\x01" "b", 2, big, 10);
	cr_assert_eq(store_fault_arm(f, STORE_E_NOSPC, 2), 0);
	for (i = 0; i < 2; i++) {
		cr_assert_eq(store_commit(f, b, &cause), STORE_E_NOSPC);
		cr_assert_not_null(strstr(cause, "no space left"), "%s", cause);
		free(cause);
		assert_value(f, "\x01" "b", NULL);
	}
	cr_assert_eq(store_commit(f, b, NULL), 0);
	cr_assert_eq(store_fault_arm(f, STORE_E_IO, -1), 0);
	for (i = 0; i < 5; i++)
		cr_assert_eq(store_commit(f, b, NULL), STORE_E_IO);
	cr_assert_eq(store_fault_arm(f, 0, 0), 0);
	cr_assert_eq(store_commit(f, b, NULL), 0);
	cr_assert_eq(store_fault_failed(f, &failed), 0);
	cr_assert_eq(failed, 7);
	/* The maxima: puts counted even when failed, reads by get and scan. */
	cr_assert_eq(store_fault_max_value_sizes(f, &mput, &mread), 0);
	cr_assert_eq(mput, sizeof big);
	cr_assert_eq(mread, 0);
	cr_assert_eq(store_get(f, "\x01" "b", 2, &g, &vlen, NULL), 0);
	free(g);
	cr_assert_eq(store_fault_max_value_sizes(f, &mput, &mread), 0);
	cr_assert_eq(mread, 10);
	it = store_iter_new(f, "\x01", 1, NULL, 0, NULL);
	while (store_iter_next(it, &k, &klen, &v, &vlen) == 1)
		;
	store_iter_free(it);
	cr_assert_eq(store_fault_max_value_sizes(f, &mput, &mread), 0);
	cr_assert_eq(mread, sizeof big);
	store_batch_free(b);
	store_close(f);
	/* Closing the wrapper closed and unlocked the store. */
	s = reopen_store();
	cr_assert_eq(store_get(s, "\x01" "b", 2, &g, &vlen, NULL), 0);
	cr_assert_eq(vlen, 10);
	cr_assert(memcmp(g, big, 10) == 0);
	free(g);
	store_close(s);
}

Test(store, stat_and_compact)
{
	struct store *s = create_store();
	struct store_batch *b = store_batch_new();
	struct store_stats st;
	uint8_t val[1000] = { 1 };
	char k[32];
	int i;

	for (i = 0; i < 2000; i++) {
		snprintf(k, sizeof k, "\x01s%05d", i);
		store_batch_put(b, k, strlen(k), val, sizeof val);
	}
	cr_assert_eq(store_commit(s, b, NULL), 0);
	store_batch_clear(b);
	store_batch_delete_range(b, "\x01s00100", 7, "\x01s01900", 7);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	cr_assert_eq(store_compact(s, "\x01s00100", 7, "\x01s01900", 7, NULL),
	    0);
	cr_assert_eq(store_compact(s, NULL, 0, NULL, 0, NULL), 0);
	cr_assert_eq(count_records(s), 201);
	cr_assert_eq(store_stat(s, &st, NULL), 0);
	cr_assert_str_eq(st.backend, TEST_BACKEND);
	cr_assert_gt(st.disk_bytes, 0);
	cr_assert_not_null(st.text);
	if (IS_LMDB) {
		cr_assert_eq(st.records, 201);
		cr_assert_gt(st.map_used, 0);
	} else {
		cr_assert_eq(st.records, -1);
		cr_assert_not_null(strstr(st.text, "Compactions"), "%s",
		    st.text);
	}
	store_stats_free(&st);
	store_batch_free(b);
	store_close(s);
}

/*
 * The compacted copy (LMDB): a store grown and mostly deleted is copied,
 * the copy opens as a store with the same records, and swapped in the
 * data file is smaller with every record the same, the store still open
 * and writable; LevelDB, which compacts in place, has no copy.
 */
Test(store, compact_copy_and_swap)
{
	struct store *s = create_store(), *c;
	struct store_batch *b = store_batch_new();
	struct store_options o = test_opts();
	struct stat sb;
	uint8_t val[1000] = { 7 }, *v;
	char k[32], dir[160], file[200], *cause = NULL;
	size_t vlen;
	off_t before;
	int i, r;

	for (i = 0; i < 5000; i++) {
		snprintf(k, sizeof k, "\x01q%05d", i);
		val[1] = (uint8_t)i;
		store_batch_put(b, k, strlen(k), val, sizeof val);
	}
	cr_assert_eq(store_commit(s, b, NULL), 0);
	store_batch_clear(b);
	store_batch_delete_range(b, "\x01q00100", 7, "\x01q05000", 7);
	cr_assert_eq(store_commit(s, b, NULL), 0);
	snprintf(dir, sizeof dir, "%s.compact", path);
	r = store_compact_copy(s, dir, &cause);
	if (!IS_LMDB) {
		cr_assert_eq(r, STORE_E_NOTSUP);
		cr_assert_not_null(strstr(cause, "compacts in place"), "%s",
		    cause);
		free(cause);
		cr_assert_eq(store_compact_swap(s, dir, NULL), STORE_E_NOTSUP);
		cr_assert_neq(access(dir, F_OK), 0);
		store_batch_free(b);
		store_close(s);
		return;
	}
	cr_assert_eq(r, 0, "copy: %s", cause ? cause : "");
	/* A second copy into the same directory is refused. */
	cr_assert_eq(store_compact_copy(s, dir, NULL), STORE_E_EXISTS);
	o.backend = NULL;
	cr_assert_eq(store_open(dir, &o, 0, &c, NULL), 0);
	cr_assert_eq(count_records(c), 101);
	store_close(c);
	snprintf(file, sizeof file, "%s/data.mdb", path);
	cr_assert_eq(stat(file, &sb), 0);
	before = sb.st_size;
	cr_assert_eq(store_compact_swap(s, dir, &cause), 0, "swap: %s",
	    cause ? cause : "");
	cr_assert_neq(access(dir, F_OK), 0, "the copy's directory is gone");
	cr_assert_eq(stat(file, &sb), 0);
	cr_assert_lt(sb.st_size * 4, before, "%lld -> %lld bytes",
	    (long long)before, (long long)sb.st_size);
	cr_assert_eq(count_records(s), 101);
	for (i = 0; i < 100; i++) {
		snprintf(k, sizeof k, "\x01q%05d", i);
		cr_assert_eq(
		    store_get(s, k, strlen(k), (void **)&v, &vlen, NULL), 0);
		cr_assert_eq(vlen, sizeof val);
		cr_assert_eq(v[0], 7);
		cr_assert_eq(v[1], (uint8_t)i);
		free(v);
	}
	put1(s, "\x01w1", 3, "x", 1);
	/* A swap without a new copy, or after a write, is refused. */
	cr_assert_eq(store_compact_swap(s, dir, NULL), STORE_E_INVAL);
	cr_assert_eq(store_compact_copy(s, dir, NULL), 0);
	put1(s, "\x01w2", 3, "y", 1);
	cr_assert_eq(store_compact_swap(s, dir, &cause), STORE_E_INVAL);
	cr_assert_not_null(strstr(cause, "written after"), "%s", cause);
	free(cause);
	cr_assert_neq(access(dir, F_OK), 0);
	cr_assert_eq(count_records(s), 103);
	store_batch_free(b);
	store_close(s);
	s = reopen_store();
	cr_assert_eq(count_records(s), 103);
	store_close(s);
}

Test(store, key_helpers)
{
	const uint8_t raw[] = { 0x00, 'f', '\\', ' ', 0xff, 'Z', '\t' };
	struct store_key a, b;
	uint8_t *back;
	size_t blen;
	char *e, *cause = NULL;

	e = store_key_escape(raw, sizeof raw);
	cr_assert_str_eq(e, "\\x00f\\\\\\x20\\xffZ\\x09");
	cr_assert_eq(store_key_unescape(e, &back, &blen, NULL), 0);
	cr_assert_eq(blen, sizeof raw);
	cr_assert(memcmp(back, raw, blen) == 0);
	free(back);
	free(e);
	cr_assert_eq(store_key_unescape("\\x0g", &back, &blen, &cause),
	    STORE_E_INVAL);
	cr_assert_not_null(strstr(cause, "bad escape"));
	free(cause);
	/* Fixed-width big-endian: byte order is numeric order. */
	store_key_init(&a, 0x30);
	store_key_u32(&a, 2);
	store_key_u64(&a, 255);
	store_key_init(&b, 0x30);
	store_key_u32(&b, 2);
	store_key_u64(&b, 256);
	cr_assert_eq(a.len, 13);
	cr_assert_lt(store_key_cmp(a.data, a.len, b.data, b.len), 0);
	store_key_init(&b, 0x30);
	store_key_u32(&b, 10);
	cr_assert_lt(store_key_cmp(a.data, a.len, b.data, b.len), 0);
	cr_assert_lt(store_key_cmp("ab", 2, "ab\0", 3), 0);
	cr_assert_eq(store_key_cmp("", 0, "", 0), 0);
	cr_assert_eq(store_meta_check(STORE_FORMAT_KEY, STORE_FORMAT_KEYLEN,
	    "\0\0\0\1", 4, NULL), 0);
	cr_assert_eq(store_meta_check("\0other", 6, "", 0, NULL),
	    STORE_NOTFOUND);
}
