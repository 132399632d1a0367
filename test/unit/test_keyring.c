/*
 * test_keyring.c: keyring files in Ceph's layout: what parses, what is
 * refused and how it is said, the mode checks, and writing.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common/b64.h"
#include "common/mapmon.h"
#include "net/keyring.h"

/* 32 bytes 0x00..0x1f. */
#define KEY_B64 "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

static char dir[64];

static void
setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/test_keyring.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(keyring, .init = setup, .fini = teardown);

static char *
path_of(const char *name)
{
	char *p;

	xasprintf(&p, "%s/%s", dir, name);
	return p;
}

static void
put_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	cr_assert_eq(chmod(path, mode), 0);
}

/* Parse text; the cause when it fails, else NULL (and *out set). */
static char *
parse(const char *text, struct keyring **out)
{
	char *cause = NULL;

	*out = NULL;
	if (keyring_parse(text, strlen(text), "k", out, &cause) == 0)
		return NULL;
	cr_assert_not_null(cause);
	return cause;
}

static void
refused(const char *text, const char *want)
{
	struct keyring *k;
	char *cause = parse(text, &k);

	cr_assert_not_null(cause, "accepted: %s", text);
	cr_expect(strstr(cause, want) != NULL, "'%s' not in '%s'", want, cause);
	free(cause);
}

Test(keyring, ceph_layout_parses)
{
	struct keyring *k;
	const struct keyring_entity *e;
	char *cause;
	int i;

	cause = parse("# made by mapmond --mkfs\n"
		      "[client.admin]\n"
		      "\tkey = " KEY_B64 "\n"
		      "\tcaps mon = \"allow *\"\n"
		      "\n"
		      "; another\n"
		      "[osd.3]\n"
		      "key=" KEY_B64 "\r\n"
		      "caps mon = allow profile osd\n"
		      "caps osd = \"allow *\"\n",
	    &k);
	cr_assert_null(cause, "%s", cause);
	cr_assert_eq(k->n, 2);
	e = keyring_find(k, "client.admin");
	cr_assert_not_null(e);
	for (i = 0; i < KEYRING_KEY_LEN; i++)
		cr_assert_eq(e->key[i], i);
	cr_assert_eq(e->ncaps, 1);
	cr_expect_str_eq(e->caps[0].service, "mon");
	cr_expect_str_eq(e->caps[0].cap, "allow *");
	e = keyring_find(k, "osd.3");
	cr_assert_not_null(e);
	cr_assert_eq(e->ncaps, 2);
	cr_expect_str_eq(e->caps[0].cap, "allow profile osd");
	cr_expect_str_eq(e->caps[1].service, "osd");
	cr_expect_null(keyring_find(k, "osd.4"));
	keyring_free(k);
}

Test(keyring, bad_files_say_what_and_where)
{
	refused("key = " KEY_B64 "\n", "k:1: a setting before any [NAME]");
	refused("[client.a]\ncaps mon = \"allow r\"\n",
	    "k:1: [client.a] has no key");
	refused("[client.a]\nkey = " KEY_B64 "\n[client.b]\n",
	    "k:3: [client.b] has no key");
	refused("[client.a]\nkey = " KEY_B64 "\nkey = " KEY_B64 "\n",
	    "k:3: a second key");
	refused("[client.a]\nkey = " KEY_B64 "\n[client.a]\nkey = " KEY_B64
		"\n",
	    "k:3: [client.a] is given twice");
	refused("[client.a]\nkey = AQD+abc=\n", "k:2: key of [client.a]");
	refused("[client.a]\nkey = AQ$$\n", "not a base64 character");
	/* A Ceph key: 28 bytes. */
	refused("[client.a]\nkey = AQCj2YpRiAe6CxAA7/ETt7Hcl9IyxyaciVs47A==\n",
	    "a Ceph key? mapmon keys are 32 bytes");
	refused("[client.a]\nkey = " KEY_B64 "\nauid = 0\n",
	    "k:3: unknown setting 'auid'");
	refused("[client.a]\nkey = " KEY_B64 "\ncaps = x\n",
	    "k:3: unknown setting 'caps'");
	refused("[client.a]\nkey = " KEY_B64 "\ncaps mon = \"allow r\n",
	    "one double quote");
	refused("[client a]\nkey = " KEY_B64 "\n", "bad entity name");
	refused("[client.a\n", "expected [NAME]");
	refused("[client.a]\njunk\n", "k:2: expected NAME = VALUE");
}

Test(keyring, load_refuses_what_others_may_read)
{
	struct keyring *k = NULL;
	char *p = path_of("kr"), *cause = NULL;
	const char *text = "[client.admin]\n\tkey = " KEY_B64 "\n";

	put_file(p, text, 0640);
	cr_assert_eq(keyring_load(p, &k, &cause), -1);
	cr_expect(strstr(cause,
		      "is readable by group or others (mode "
		      "0640)") != NULL &&
		strstr(cause, "chmod 600") != NULL,
	    "%s", cause);
	free(cause);
	cause = NULL;
	cr_assert_eq(chmod(p, 0604), 0);
	cr_assert_eq(keyring_load(p, &k, &cause), -1);
	cr_expect(strstr(cause, "readable by group or others") != NULL, "%s",
	    cause);
	free(cause);
	cause = NULL;
	cr_assert_eq(chmod(p, 0620), 0);
	cr_assert_eq(keyring_load(p, &k, &cause), -1);
	cr_expect(strstr(cause, "writable by group or others") != NULL, "%s",
	    cause);
	free(cause);
	cause = NULL;
	cr_assert_eq(chmod(p, 0600), 0);
	cr_assert_eq(keyring_load(p, &k, &cause), 0, "%s", cause);
	cr_expect_not_null(keyring_find(k, "client.admin"));
	keyring_free(k);
	free(p);

	p = path_of("missing");
	cr_assert_eq(keyring_load(p, &k, &cause), -1);
	cr_expect(strstr(cause, "No such file") != NULL, "%s", cause);
	free(cause);
	free(p);
}

Test(keyring, write_makes_a_0600_file_and_replaces_none)
{
	static const char *const caps[] = { "mon", "allow profile osd", "osd",
		"allow *" };
	struct keyring *k = keyring_new(), *back = NULL;
	const struct keyring_entity *e;
	struct stat st;
	uint8_t key[KEYRING_KEY_LEN];
	char *p = path_of("new.keyring"), *cause = NULL, *text;
	mode_t old = umask(0);
	size_t i;

	for (i = 0; i < sizeof key; i++)
		key[i] = (uint8_t)(0xa0 + i);
	keyring_add(k, "osd.7", key, caps, 2);
	text = keyring_format(k);
	cr_expect(strstr(text, "[osd.7]\n\tkey = ") == text, "%s", text);
	cr_expect(strstr(text, "\tcaps mon = \"allow profile osd\"\n") != NULL);
	free(text);
	cr_assert_eq(keyring_write(p, k, &cause), 0, "%s", cause);
	umask(old);
	cr_assert_eq(stat(p, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
	cr_assert_eq(keyring_load(p, &back, &cause), 0, "%s", cause);
	e = keyring_find(back, "osd.7");
	cr_assert_not_null(e);
	cr_expect_eq(memcmp(e->key, key, sizeof key), 0);
	cr_expect_eq(e->ncaps, 2);
	keyring_free(back);

	/* An existing file stays as it was. */
	cr_assert_eq(keyring_write(p, k, &cause), -1);
	cr_expect(strstr(cause, "exists already") != NULL, "%s", cause);
	free(cause);
	keyring_free(k);
	free(p);
}

Test(keyring, add_replaces_an_entity)
{
	static const char *const r[] = { "mon", "allow r" };
	static const char *const w[] = { "mon", "allow rw" };
	struct keyring *k = keyring_new();
	uint8_t key[KEYRING_KEY_LEN] = { 1 };

	keyring_add(k, "client.a", key, r, 1);
	key[0] = 2;
	keyring_add(k, "client.a", key, w, 1);
	cr_assert_eq(k->n, 1);
	cr_expect_eq(k->entities[0].key[0], 2);
	cr_expect_str_eq(k->entities[0].caps[0].cap, "allow rw");
	keyring_free(k);
}

Test(keyring, base64_round_trip_and_refusals)
{
	uint8_t in[5] = { 0xff, 0, 1, 2, 3 }, out[5];
	char *s = b64_encode(in, sizeof in), *cause = NULL;

	cr_expect_str_eq(s, "/wABAgM=");
	cr_assert_eq(b64_decode_exact(s, out, sizeof out, &cause), 0);
	cr_expect_eq(memcmp(in, out, sizeof in), 0);
	free(s);
	cr_expect_eq(b64_decode_exact("/wABAgM", out, 5, &cause), -1);
	cr_expect(strstr(cause, "not a multiple of 4") != NULL, "%s", cause);
	free(cause);
	cr_expect_eq(b64_decode_exact("/w=BAgM=", out, 5, &cause), -1);
	cr_expect(strstr(cause, "not final padding") != NULL, "%s", cause);
	free(cause);
	cr_expect_eq(b64_decode_exact("/wABAgM=", out, 4, &cause), -1);
	cr_expect(strstr(cause, "of 5 bytes, not 4") != NULL, "%s", cause);
	free(cause);
}
