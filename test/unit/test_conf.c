/*
 * test_conf.c: the option table, the value parsers and the ini loader.
 *
 * Bad files are written to a temporary directory and loaded; each case checks
 * every error exactly, as "FILE:LINE: message".  Good files check the values
 * a daemon would see.  The last suite holds the table, the sample
 * conf/mapmon.conf and man/mapmon.conf.5 together, read this way:
 *
 *  - conf/mapmon.conf: a "[section]" line opens a section; in it, each key is
 *    a line "# HELP" followed by a line "#key = DEFAULT" (no blank after the
 *    '#'; an empty default is written "").
 *  - man/mapmon.conf.5: a line ".Ss [section]" opens a section; in it, each
 *    key is an item ".It Cm key Ns = Ns Ar DEFAULT", or ".It Cm key Ns = Ns
 *    Qq" for an empty default.  No other line starts with ".It Cm".
 *
 * Both must list every key of the table exactly once, in its section, with
 * its default, and nothing else.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "common/mapmon.h"
#include "conf/conf.h"

static char tmpdir[64];

static void
setup(void)
{
	strcpy(tmpdir, "/tmp/test_conf.XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
teardown(void)
{
	nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes len bytes of content to a file of the temporary directory. */
static char *
write_file_len(const char *name, const char *content, size_t len)
{
	char *path;
	FILE *f;

	xasprintf(&path, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(content, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static char *
write_file(const char *name, const char *content)
{
	return write_file_len(name, content, strlen(content));
}

/* Loads content that must be valid; the caller frees the result. */
static struct conf *
load_ok(const char *content)
{
	char *path = write_file("good.conf", content), **errors;
	size_t n, i;
	struct conf *c;

	c = conf_load(path, &errors, &n);
	for (i = 0; i < n; i++)
		cr_log_error("unexpected: %s", errors[i]);
	cr_assert_not_null(c, "%s did not load", path);
	cr_assert_eq(n, 0);
	cr_assert_null(errors);
	cr_assert_str_eq(conf_path(c), path);
	free(path);
	return c;
}

/*
 * Loads content that must fail with exactly the errors given, each written
 * "LINE: message" (the file name is added here).
 */
static void
expect_errors_len(const char *content, size_t len,
    const char *const *expected, size_t nexpected)
{
	char *path = write_file_len("bad.conf", content, len), **errors, *want;
	size_t n, i;
	struct conf *c;

	c = conf_load(path, &errors, &n);
	cr_assert_null(c, "a bad file loaded");
	for (i = 0; i < n; i++)
		cr_log_info("got: %s", errors[i]);
	cr_assert_eq(n, nexpected, "%zu errors, expected %zu", n, nexpected);
	for (i = 0; i < n; i++) {
		xasprintf(&want, "%s:%s", path, expected[i]);
		cr_assert_str_eq(errors[i], want);
		free(want);
	}
	conf_errors_free(errors, n);
	free(path);
}

#define EXPECT(content, ...)                                                   \
	do {                                                                   \
		static const char *const exp_[] = { __VA_ARGS__ };             \
		expect_errors_len(content, strlen(content), exp_,              \
		    nitems(exp_));                                             \
	} while (0)

/* A file-level error: exactly one, "PATH: message". */
static void
expect_file_error(const char *path, const char *message)
{
	char **errors, *want;
	size_t n;

	cr_assert_null(conf_load(path, &errors, &n));
	cr_assert_eq(n, 1);
	xasprintf(&want, "%s: %s", path, message);
	cr_assert_str_eq(errors[0], want);
	free(want);
	conf_errors_free(errors, n);
}

TestSuite(bad, .init = setup, .fini = teardown);
TestSuite(good, .init = setup, .fini = teardown);
TestSuite(table, .init = setup, .fini = teardown);

/* ---- bad files: one case each ---- */

Test(bad, unknown_key_suggests_nearest)
{
	EXPECT("[mon]\npropose_intervl = 5ms\n",
	    "2: unknown key 'propose_intervl' in [mon]; did you mean "
	    "'propose_interval'?");
}

Test(bad, unknown_key_swapped_letters)
{
	EXPECT("[store.lmdb]\nmax_raeders = 5\n",
	    "2: unknown key 'max_raeders' in [store.lmdb]; did you mean "
	    "'max_readers'?");
}

Test(bad, unknown_key_in_other_section)
{
	EXPECT("[store]\nmap_size = 2G\n",
	    "2: unknown key 'map_size' in [store]; did you mean 'map_size' in "
	    "[store.lmdb]?");
}

Test(bad, unknown_key_without_suggestion)
{
	EXPECT("[mon]\nfrobnicate = 1\n",
	    "2: unknown key 'frobnicate' in [mon]");
}

Test(bad, unknown_section_suggests_nearest)
{
	/* The keys under it are not reported one by one. */
	EXPECT("[mn]\nbind = 127.0.0.1:1\nnope = 3\n[mon]\nname = b\n",
	    "1: unknown section [mn]; did you mean [mon]?");
}

Test(bad, unknown_section_last_part)
{
	EXPECT("\n[lmdb]\nmap_size = 2G\n",
	    "2: unknown section [lmdb]; did you mean [store.lmdb]?");
}

Test(bad, unknown_section_without_suggestion)
{
	EXPECT("[frobnicate]\nrequired = true\n",
	    "1: unknown section [frobnicate]");
}

Test(bad, section_missing_bracket)
{
	EXPECT("[mon\nname = b\n",
	    "1: missing ']' in section header '[mon'");
}

Test(bad, section_empty_name)
{
	EXPECT("[ ]\n", "1: empty section name");
}

Test(bad, section_trailing_text)
{
	EXPECT("[mon] name = b\n",
	    "1: unexpected text 'name = b' after section header");
}

Test(bad, bad_number)
{
	EXPECT("[mon]\npropose_max_ops = 12x\n",
	    "2: bad number '12x' for propose_max_ops: expected a whole number");
}

Test(bad, number_too_large)
{
	EXPECT("[mon]\nmin_epochs = 99999999999999999999\n",
	    "2: bad number '99999999999999999999' for min_epochs: too large");
}

Test(bad, int_out_of_range)
{
	EXPECT("[mon]\npropose_max_ops = 0\ndata_avail_warn = 101\n",
	    "2: value 0 out of range for propose_max_ops: must be between 1 "
	    "and 10000000",
	    "3: value 101 out of range for data_avail_warn: must be between 0 "
	    "and 100");
}

Test(bad, negative_number)
{
	EXPECT("[store.leveldb]\nbloom_bits = -1\n",
	    "2: value -1 out of range for bloom_bits: must be between 0 and "
	    "64");
}

Test(bad, duration_out_of_range)
{
	EXPECT("[mon]\npropose_interval = 11s\nosd_down_out_interval = 8d\n",
	    "2: value 11s out of range for propose_interval: must be between "
	    "1ms and 10s",
	    "3: value 8d out of range for osd_down_out_interval: must be "
	    "between 0 and 7d");
}

Test(bad, size_out_of_range)
{
	EXPECT("[mon]\nmax_frame = 2G\nmax_client_output = 1K\n",
	    "2: value 2G out of range for max_frame: must be between 4K and 1G",
	    "3: value 1K out of range for max_client_output: must be between "
	    "64K and 4G");
}

Test(bad, size_suffix)
{
	EXPECT("[mon]\nmax_frame = 64Q\n",
	    "2: bad size '64Q' for max_frame: use a number of bytes with an "
	    "optional K, M, G or T suffix, as in 64M");
}

Test(bad, size_fraction)
{
	EXPECT("[store.lmdb]\nmap_size = 1.5G\n",
	    "2: bad size '1.5G' for map_size: use whole numbers, as in 1536M");
}

Test(bad, size_overflow)
{
	EXPECT("[store.lmdb]\nmap_size = 99999999999T\n",
	    "2: bad size '99999999999T' for map_size: too large");
}

Test(bad, duration_without_unit)
{
	EXPECT("[mon]\npropose_interval = 20\n",
	    "2: bad duration '20' for propose_interval: give a unit, as in "
	    "20ms or 2s");
}

Test(bad, duration_unknown_unit)
{
	EXPECT("[mon]\nidle_timeout = 5min\npg_stale_timeout = 1M\n",
	    "2: bad duration '5min' for idle_timeout: units are ms, s, m, h "
	    "and d, as in 20ms or 2s",
	    "3: bad duration '1M' for pg_stale_timeout: units are ms, s, m, h "
	    "and d, as in 20ms or 2s");
}

Test(bad, duration_fraction)
{
	EXPECT("[mon]\npropose_interval = 1.5s\n",
	    "2: bad duration '1.5s' for propose_interval: use whole numbers, "
	    "as in 1500ms");
}

Test(bad, duration_not_a_number)
{
	EXPECT("[mon]\npropose_interval = soon\n",
	    "2: bad duration 'soon' for propose_interval: use a number and a "
	    "unit, as in 20ms or 2s");
}

Test(bad, float_out_of_range_and_malformed)
{
	EXPECT("[mon]\nosd_min_in_ratio = 1.5\n",
	    "2: value 1.5 out of range for osd_min_in_ratio: must be between 0 "
	    "and 1");
	EXPECT("[mon]\nosd_min_in_ratio = -0.01\n",
	    "2: value -0.01 out of range for osd_min_in_ratio: must be between "
	    "0 and 1");
	EXPECT("[mon]\nosd_min_in_ratio = 75%\n",
	    "2: bad number '75%' for osd_min_in_ratio: give a decimal number, "
	    "as in 0.75");
	EXPECT("[mon]\nosd_min_in_ratio = nan\n",
	    "2: bad number 'nan' for osd_min_in_ratio: give a decimal number, "
	    "as in 0.75");
}

Test(bad, bad_bool)
{
	EXPECT("[store.leveldb]\nparanoid_checks = maybe\n",
	    "2: bad bool 'maybe' for paranoid_checks: expected true, false, "
	    "yes, no, on, off, 1 or 0");
}

Test(bad, enum_suggests_choice)
{
	EXPECT("[store]\nbackend = lmbd\n",
	    "2: bad value 'lmbd' for backend: expected lmdb or leveldb; did "
	    "you mean 'lmdb'?");
}

Test(bad, enum_without_suggestion)
{
	EXPECT("[store]\nbackend = rocksdb\nsync = always\n",
	    "2: bad value 'rocksdb' for backend: expected lmdb or leveldb",
	    "3: bad value 'always' for sync: expected commit or none");
}

Test(bad, duplicate_key)
{
	EXPECT("[mon]\n\nbind = 127.0.0.1:1\nname = b\nbind = 127.0.0.1:2\n",
	    "5: duplicate key 'bind' in [mon] (first set at line 3)");
}

Test(bad, duplicate_key_across_repeated_section)
{
	EXPECT("[log]\nfile = a\n[mon]\n[log]\nfile = b\n",
	    "5: duplicate key 'file' in [log] (first set at line 2)");
}

Test(bad, duplicate_of_a_bad_value)
{
	EXPECT("[mon]\nmax_frame = huge\nmax_frame = 1M\n",
	    "2: bad size 'huge' for max_frame: use a number of bytes with an "
	    "optional K, M, G or T suffix, as in 64M",
	    "3: duplicate key 'max_frame' in [mon] (first set at line 2)");
}

Test(bad, line_without_equals)
{
	EXPECT("[mon]\npropose_interval 5ms\n",
	    "2: expected 'key = value' or '[section]', not 'propose_interval "
	    "5ms'");
}

Test(bad, line_with_colon_instead_of_equals)
{
	/* Some ini parsers take "name: b" as a pair; mapmon does not. */
	EXPECT("[mon]\nname: b\n",
	    "2: expected 'key = value' or '[section]', not 'name: b'");
}

Test(bad, key_before_any_section)
{
	EXPECT("bind = 127.0.0.1:1\nfoo = 1\n[mon]\n",
	    "1: key 'bind' before any section; put it under [mon] or [metrics]",
	    "2: key 'foo' before any section");
}

Test(bad, missing_key)
{
	EXPECT("[mon]\n = 5\n", "2: missing key before '='");
}

Test(bad, bad_key_name)
{
	EXPECT("[mon]\nmon:name = b\n",
	    "2: bad key name 'mon:name': keys are letters, digits and '_'");
}

Test(bad, overlong_line)
{
	char content[2048];

	/* 1025 characters: one more than allowed, in a comment even. */
	snprintf(content, sizeof content, "[mon]\n#%01024d\nname =\n", 0);
	EXPECT(content,
	    "2: line too long (1025 characters; at most 1024)",
	    "3: empty value for name: give a value, or remove the line for "
	    "the default a");
}

Test(bad, very_long_line_without_newline)
{
	size_t len = 1 << 20;
	char *content = xmalloc(len);
	static const char *const exp[] = {
		"1: line too long (1048576 characters; at most 1024)"
	};

	memset(content, 'x', len);
	expect_errors_len(content, len, exp, 1);
	free(content);
}

Test(bad, empty_value)
{
	EXPECT("[mon]\npropose_interval =\n"
	       "[store]\nbackend = \"\"\n"
	       "[log]\ndebug_mon = ; nothing\n",
	    "2: empty value for propose_interval: give a value, or remove the "
	    "line for the default 20ms",
	    "4: empty value for backend: give a value, or remove the line for "
	    "the default lmdb",
	    "6: empty value for debug_mon: give a value, or remove the line "
	    "for the default 1/5");
}

Test(bad, unterminated_quote)
{
	EXPECT("[mon]\ndata = \"/var/lib/mapmon ; comment\n",
	    "2: unterminated quote in '\"/var/lib/mapmon ; comment' for data: "
	    "close it with a '\"' at the end of the value");
}

Test(bad, text_after_closing_quote)
{
	EXPECT("[mon]\nname = \"a\" b\n",
	    "2: unterminated quote in '\"a\" b' for name: close it with a '\"' "
	    "at the end of the value");
}

Test(bad, control_character)
{
	EXPECT("[mon]\nname = a\x01z\n",
	    "2: bad value 'a\x01z' for name: control characters are not "
	    "allowed");
}

Test(bad, nul_byte)
{
	static const char content[] = "[mon]\nname = a\0b\nbind = x\n";
	static const char *const exp[] = {
		"2: NUL byte in line (is this a text file?)",
		"3: bad address 'x' for bind: expected HOST:PORT, as in "
		"127.0.0.1:6788",
	};

	expect_errors_len(content, sizeof content - 1, exp, nitems(exp));
}

Test(bad, address_without_port)
{
	EXPECT("[mon]\nbind = 127.0.0.1\n",
	    "2: bad address '127.0.0.1' for bind: expected HOST:PORT, as in "
	    "127.0.0.1:6788");
}

Test(bad, address_ipv6_without_brackets)
{
	EXPECT("[mon]\nbind = ::1:6788\n",
	    "2: bad address '::1:6788' for bind: put an IPv6 address in "
	    "brackets, as in [::1]:6788");
}

Test(bad, address_bad_port_and_hosts)
{
	EXPECT("[mon]\nbind = 127.0.0.1:70000\n"
	       "[metrics]\nbind = 300.1.2.3:9100\n"
	       "[mon]\nname = x\n"
	       "[metrics]\n",
	    "2: bad address '127.0.0.1:70000' for bind: the port is a number "
	    "from 0 to 65535",
	    "4: bad address '300.1.2.3:9100' for bind: not an IPv4 address");
	EXPECT("[metrics]\nbind = [::g]:1\n",
	    "2: bad address '[::g]:1' for bind: not an IPv6 address inside "
	    "the brackets");
	EXPECT("[metrics]\nbind = -host:1\n",
	    "2: bad address '-host:1' for bind: not a valid host name");
	EXPECT("[metrics]\nbind = :9100\n",
	    "2: bad address ':9100' for bind: missing host, as in "
	    "127.0.0.1:6788 (0.0.0.0 for every interface)");
}

Test(bad, log_level)
{
	EXPECT("[log]\ndebug_mon = 1/30\ndebug_net = x/5\ndebug_pg = 1/\n",
	    "2: bad log level '1/30' for debug_mon: levels go from 0 to 20",
	    "3: bad log level 'x/5' for debug_net: expected L/G or L, as in "
	    "1/5, with levels 0 to 20",
	    "4: bad log level '1/' for debug_pg: expected L/G or L, as in 1/5, "
	    "with levels 0 to 20");
}

/* The budget of partial frames must hold one frame of max_frame. */
Test(bad, partial_input_below_max_frame)
{
	EXPECT("[mon]\nmax_frame = 64M\nmax_partial_input = 32M\n",
	    "3: max_partial_input 32M is less than max_frame 64M plus its "
	    "16-byte header: a frame of max_frame could never be read whole");
	/* Equal is one header short; the line is max_partial_input's. */
	EXPECT("[mon]\nmax_partial_input = 1M\n\nmax_frame = 1M\n",
	    "2: max_partial_input 1M is less than max_frame 1M plus its "
	    "16-byte header: a frame of max_frame could never be read whole");
	/* A max_frame above the default budget, which the file left as is. */
	EXPECT("[mon]\nname = a\nmax_frame = 512M\n",
	    "3: max_partial_input 256M is less than max_frame 512M plus its "
	    "16-byte header: a frame of max_frame could never be read whole");
	/* Other errors come first, and this check waits for a clean file. */
	EXPECT("[mon]\nmax_frame = 512M\nidle_timeout = 5\n",
	    "3: bad duration '5' for idle_timeout: give a unit, as in 20ms or "
	    "2s");
}

Test(good, partial_input_holds_a_frame)
{
	struct conf *c;
	char *cause = NULL;

	c = load_ok("[mon]\nmax_frame = 1M\nmax_partial_input = 1048592\n");
	cr_assert_eq(conf_int(c, CONF_MON_MAX_PARTIAL_INPUT), (1 << 20) + 16);
	cr_assert_eq(conf_check(c, &cause), 0);
	/* conf_set() takes one key at a time; conf_check() sees the pair. */
	cr_assert_eq(conf_set(c, CONF_MON_MAX_FRAME, "2M", &cause), 0);
	cr_assert_eq(conf_check(c, &cause), -1);
	cr_assert_str_eq(cause, "max_partial_input 1048592 is less than "
	    "max_frame 2M plus its 16-byte header: a frame of max_frame could "
	    "never be read whole");
	free(cause);
	conf_free(c);
	c = load_ok("[mon]\nmax_frame = 1G\nmax_partial_input = 2G\n");
	conf_free(c);
}

Test(bad, several_errors_all_reported)
{
	EXPECT("; a file with one error of each kind\n"
	       "stray = 1\n"
	       "[mon]\n"
	       "name = b\n"
	       "propose_interval = 20\n"
	       "propose_intervall = 20ms\n"
	       "just words\n"
	       "[stroe]\n"
	       "backend = lmdb\n"
	       "[store]\n"
	       "backend = lmbd\n"
	       "backend = lmdb\n"
	       "[log]\n"
	       "debug_mon = 1/5\n"
	       "max_recent = lots\n",
	    "2: key 'stray' before any section",
	    "5: bad duration '20' for propose_interval: give a unit, as in "
	    "20ms or 2s",
	    "6: unknown key 'propose_intervall' in [mon]; did you mean "
	    "'propose_interval'?",
	    "7: expected 'key = value' or '[section]', not 'just words'",
	    "8: unknown section [stroe]; did you mean [store]?",
	    "11: bad value 'lmbd' for backend: expected lmdb or leveldb; did "
	    "you mean 'lmdb'?",
	    "12: duplicate key 'backend' in [store] (first set at line 11)",
	    "15: bad number 'lots' for max_recent: expected a whole number");
}

Test(bad, too_many_errors)
{
	char *content = NULL, *tmp, **errors, *path, *want;
	size_t n;
	int i;

	content = xstrdup("[mon]\n");
	for (i = 0; i < 150; i++) {
		xasprintf(&tmp, "%sbogus%d = 1\n", content, i);
		free(content);
		content = tmp;
	}
	path = write_file("many.conf", content);
	cr_assert_null(conf_load(path, &errors, &n));
	cr_assert_eq(n, CONF_ERRORS_MAX + 1);
	xasprintf(&want, "%s:%d: unknown key 'bogus%d' in [mon]", path,
	    CONF_ERRORS_MAX + 1, CONF_ERRORS_MAX - 1);
	cr_assert_str_eq(errors[CONF_ERRORS_MAX - 1], want);
	free(want);
	xasprintf(&want, "%s: too many errors; stopped after %d", path,
	    CONF_ERRORS_MAX);
	cr_assert_str_eq(errors[CONF_ERRORS_MAX], want);
	free(want);
	conf_errors_free(errors, n);
	free(path);
	free(content);
}

Test(bad, missing_file)
{
	char *path;

	xasprintf(&path, "%s/nonexistent.conf", tmpdir);
	expect_file_error(path, "cannot open: No such file or directory");
	free(path);
}

Test(bad, unreadable_file)
{
	char *path = write_file("secret.conf", "[mon]\n");

	if (geteuid() == 0)
		cr_skip_test("root reads files whatever their mode");
	cr_assert_eq(chmod(path, 0), 0);
	expect_file_error(path, "cannot open: Permission denied");
	free(path);
}

Test(bad, socket_as_file)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s/sock", tmpdir);
	cr_assert_neq(fd = socket(AF_UNIX, SOCK_STREAM, 0), -1);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sun, sizeof sun), 0);
	/* open(2) of a socket fails even for root. */
	expect_file_error(sun.sun_path,
	    "cannot open: No such device or address");
	close(fd);
}

Test(bad, fifo_as_file)
{
	char *path;

	xasprintf(&path, "%s/fifo", tmpdir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	/* Must not block waiting for a writer. */
	expect_file_error(path, "not a regular file");
	free(path);
}

Test(bad, directory_as_file)
{
	expect_file_error(tmpdir, "is a directory, not a config file");
}

/* ---- good files ---- */

Test(good, empty_file_gives_defaults)
{
	struct conf *c = load_ok(""), *d = conf_new();
	int k;

	for (k = 0; k < CONF_NKEYS; k++) {
		cr_assert(conf_equal(c, d, k), "key %d", k);
		cr_assert_eq(conf_line(c, k), 0);
	}
	cr_assert_null(conf_path(d));
	conf_free(c);
	conf_free(d);
}

Test(good, absent_keys_keep_defaults)
{
	struct conf *c = load_ok("[mon]\nname = b\n[store]\n");

	cr_assert_str_eq(conf_str(c, CONF_MON_NAME), "b");
	cr_assert_eq(conf_line(c, CONF_MON_NAME), 2);
	cr_assert_str_eq(conf_str(c, CONF_MON_BIND), "127.0.0.1:6788");
	cr_assert_eq(conf_int(c, CONF_MON_PROPOSE_INTERVAL), 20);
	cr_assert_eq(conf_int(c, CONF_STORE_BACKEND), CONF_BACKEND_LMDB);
	cr_assert_eq(conf_line(c, CONF_STORE_BACKEND), 0);
	conf_free(c);
}

Test(good, every_type)
{
	struct conf *c;
	int l, g;

	c = load_ok("[mon]\n"
		    "name = b\n"
		    "data = /srv/mapmon\n"
		    "bind = [::1]:7000\n"
		    "propose_interval = 5ms\n"
		    "propose_max_ops = 1000\n"
		    "pg_stale_timeout = 2m\n"
		    "osd_down_out_interval = 0\n"
		    "osd_min_in_ratio = 0.5\n"
		    "data_size_warn = 20GB\n"
		    "idle_timeout = 1h\n"
		    "max_frame = 1m\n"
		    "[store]\n"
		    "backend = LevelDB\n"
		    "sync = none\n"
		    "[store.leveldb]\n"
		    "block_size = 4096\n"
		    "cache_size = 0\n"
		    "compression = snappy\n"
		    "paranoid_checks = yes\n"
		    "compact_on_start = On\n"
		    "[store.lmdb]\n"
		    "map_size = 512GiB\n"
		    "[log]\n"
		    "file = syslog\n"
		    "debug_mon = 0/20\n"
		    "debug_net = 3\n"
		    "[metrics]\n"
		    "bind = localhost:9100\n");
	cr_assert_str_eq(conf_str(c, CONF_MON_NAME), "b");
	cr_assert_str_eq(conf_str(c, CONF_MON_DATA), "/srv/mapmon");
	cr_assert_str_eq(conf_str(c, CONF_MON_BIND), "[::1]:7000");
	cr_assert_eq(conf_int(c, CONF_MON_PROPOSE_INTERVAL), 5);
	cr_assert_eq(conf_int(c, CONF_MON_PROPOSE_MAX_OPS), 1000);
	cr_assert_eq(conf_int(c, CONF_MON_PG_STALE_TIMEOUT), 120000);
	cr_assert_eq(conf_int(c, CONF_MON_OSD_DOWN_OUT_INTERVAL), 0);
	cr_assert_eq(conf_float(c, CONF_MON_OSD_MIN_IN_RATIO), 0.5);
	cr_assert_eq(conf_int(c, CONF_MON_DATA_SIZE_WARN), 20LL << 30);
	cr_assert_eq(conf_int(c, CONF_MON_IDLE_TIMEOUT), 3600000);
	cr_assert_eq(conf_int(c, CONF_MON_MAX_FRAME), 1 << 20);
	cr_assert_eq(conf_int(c, CONF_STORE_BACKEND), CONF_BACKEND_LEVELDB);
	cr_assert_str_eq(conf_str(c, CONF_STORE_BACKEND), "leveldb");
	cr_assert_eq(conf_int(c, CONF_STORE_SYNC), CONF_SYNC_NONE);
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_BLOCK_SIZE), 4096);
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_CACHE_SIZE), 0);
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_COMPRESSION),
	    CONF_COMPRESSION_SNAPPY);
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_PARANOID_CHECKS), 1);
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_COMPACT_ON_START), 1);
	cr_assert_eq(conf_int(c, CONF_STORE_LMDB_MAP_SIZE), 512LL << 30);
	cr_assert_str_eq(conf_str(c, CONF_LOG_FILE), "syslog");
	conf_loglevel(c, CONF_LOG_DEBUG_MON, &l, &g);
	cr_assert(l == 0 && g == 20);
	conf_loglevel(c, CONF_LOG_DEBUG_NET, &l, &g);
	cr_assert(l == 3 && g == 3, "a bare level is L/L");
	conf_loglevel(c, CONF_LOG_DEBUG_PG, &l, &g);
	cr_assert(l == 1 && g == 5, "untouched levels keep 1/5");
	cr_assert_str_eq(conf_str(c, CONF_METRICS_BIND), "localhost:9100");
	conf_free(c);
}

Test(good, comments_and_whitespace)
{
	struct conf *c;

	c = load_ok("\xef\xbb\xbf; comment\r\n"
		    "# another comment\n"
		    "\n"
		    "   \t\n"
		    "  [ mon ]   ; section comment\n"
		    "\tname\t=\tb   # inline comment\n"
		    "   propose_max_ops=7\n"
		    "bind = 127.0.0.1:1 ;comment\r\n"
		    "[log]\n"
		    "file = /var/log/map#mon.log\n"
		    "debug_mon = 2/3 ;\n"
		    "#debug_net = 9/9\n"
		    "; debug_pg = 9/9\n");
	cr_assert_str_eq(conf_str(c, CONF_MON_NAME), "b");
	cr_assert_eq(conf_line(c, CONF_MON_NAME), 6);
	cr_assert_eq(conf_int(c, CONF_MON_PROPOSE_MAX_OPS), 7);
	cr_assert_str_eq(conf_str(c, CONF_MON_BIND), "127.0.0.1:1");
	cr_assert_str_eq(conf_str(c, CONF_LOG_FILE), "/var/log/map#mon.log");
	cr_assert_eq(conf_line(c, CONF_LOG_DEBUG_NET), 0);
	conf_free(c);
	/* ';' without a blank before it is part of the value. */
	EXPECT("[mon]\npropose_max_ops=7;x\n",
	    "2: bad number '7;x' for propose_max_ops: expected a whole number");
}

Test(good, quoted_values)
{
	struct conf *c;

	c = load_ok("[mon]\n"
		    "name = \"b\"\n"
		    "data = \"  /srv/a ;b #c  \"   ; comment\n"
		    "[log]\n"
		    "file = \"\"\n"
		    "debug_mon = \"4/5\"\n");
	cr_assert_str_eq(conf_str(c, CONF_MON_NAME), "b");
	cr_assert_str_eq(conf_str(c, CONF_MON_DATA), "  /srv/a ;b #c  ");
	cr_assert_str_eq(conf_str(c, CONF_LOG_FILE), "");
	cr_assert_eq(conf_line(c, CONF_LOG_FILE), 5);
	conf_free(c);
}

Test(good, empty_values_where_allowed)
{
	struct conf *c = load_ok("[log]\nfile =\n[metrics]\nbind =\n");

	cr_assert_str_eq(conf_str(c, CONF_LOG_FILE), "");
	cr_assert_str_eq(conf_str(c, CONF_METRICS_BIND), "");
	cr_assert_eq(conf_line(c, CONF_METRICS_BIND), 4);
	conf_free(c);
}

Test(good, same_key_name_in_two_sections)
{
	struct conf *c = load_ok("[mon]\nbind = 10.0.0.1:6788\n"
				 "[metrics]\nbind = 0.0.0.0:9100\n");

	cr_assert_str_eq(conf_str(c, CONF_MON_BIND), "10.0.0.1:6788");
	cr_assert_str_eq(conf_str(c, CONF_METRICS_BIND), "0.0.0.0:9100");
	conf_free(c);
}

Test(good, longest_line)
{
	char content[2048], path[1100];
	struct conf *c;
	int n;

	/* "data = " and 1017 more: exactly CONF_LINE_MAX characters. */
	memset(path, 'p', sizeof path);
	path[0] = '/';
	n = snprintf(content, sizeof content, "[mon]\ndata = %.*s\n",
	    CONF_LINE_MAX - 7, path);
	cr_assert_eq(n, 6 + CONF_LINE_MAX + 1);
	c = load_ok(content);
	cr_assert_eq(strlen(conf_str(c, CONF_MON_DATA)), CONF_LINE_MAX - 7);
	conf_free(c);
}

Test(good, sizes)
{
	static const struct {
		const char *s;
		int64_t v;
	} ok[] = {
		{ "0", 0 }, { "4096", 4096 }, { "12B", 12 }, { "1k", 1024 },
		{ "64K", 65536 }, { "2KiB", 2048 }, { "64M", 64 << 20 },
		{ "64MB", 64 << 20 }, { "1g", 1 << 30 }, { "3GB", 3LL << 30 },
		{ "2T", 2LL << 40 }, { "8388607T", 8388607LL << 40 },
	};
	static const char *const bad[] = {
		"", "M", "-1", "1.5M", "1 M", "10X", "1MBB", "8388608T",
		"9223372036854775808",
	};
	char *cause;
	int64_t v;
	size_t i;

	for (i = 0; i < nitems(ok); i++) {
		cr_assert_eq(conf_parse_size(ok[i].s, &v, &cause), 0, "%s",
		    ok[i].s);
		cr_assert_eq(v, ok[i].v, "%s", ok[i].s);
	}
	for (i = 0; i < nitems(bad); i++) {
		cr_assert_eq(conf_parse_size(bad[i], &v, &cause), -1, "%s",
		    bad[i]);
		cr_assert_not_null(strstr(cause, "bad size '"));
		free(cause);
	}
	cr_assert_eq(conf_parse_size("64Q", &v, &cause), -1);
	cr_assert_str_eq(cause, "bad size '64Q': use a number of bytes with "
	    "an optional K, M, G or T suffix, as in 64M");
	free(cause);
}

Test(good, durations)
{
	static const struct {
		const char *s;
		int64_t v;
	} ok[] = {
		{ "0", 0 }, { "0s", 0 }, { "20ms", 20 }, { "2s", 2000 },
		{ "10m", 600000 }, { "1h", 3600000 }, { "7d", 604800000 },
	};
	static const char *const bad[] = {
		"", "20", "s", "1.5s", "5min", "2S", "1 s", "-1s",
		"9223372036854775807d",
	};
	char *cause;
	int64_t v;
	size_t i;

	for (i = 0; i < nitems(ok); i++) {
		cr_assert_eq(conf_parse_duration(ok[i].s, &v, &cause), 0, "%s",
		    ok[i].s);
		cr_assert_eq(v, ok[i].v, "%s", ok[i].s);
	}
	for (i = 0; i < nitems(bad); i++) {
		cr_assert_eq(conf_parse_duration(bad[i], &v, &cause), -1,
		    "%s", bad[i]);
		cr_assert_not_null(strstr(cause, "bad duration '"));
		free(cause);
	}
	cr_assert_eq(conf_parse_duration("20", &v, &cause), -1);
	cr_assert_str_eq(cause, "bad duration '20': give a unit, as in 20ms "
	    "or 2s");
	free(cause);
}

Test(good, floats)
{
	static const struct {
		const char *s;
		double v;
		const char *canonical;
	} ok[] = {
		{ "0", 0, "0" },
		{ "1", 1, "1" },
		{ "0.75", 0.75, "0.75" },
		{ ".5", 0.5, "0.5" },
		{ "5e-1", 0.5, "0.5" },
		{ "-2.5", -2.5, "-2.5" },
		{ "0.1", 0.1, "0.1" },
		{ "1E3", 1000, "1e+03" },
		{ "0.00001", 1e-5, "1e-05" },
		{ "1.", 1, "1" },
	};
	static const char *const bad[] = {
		"",
		"x",
		"0.5x",
		"1,5",
		"nan",
		"NaN",
		"inf",
		"-inf",
		"0x1p-1",
		"+1",
		" 1",
		"1 ",
		"1e",
		"1e+",
		".",
		"-",
		"e5",
		"1.2.3",
	};
	char *cause, *f;
	double v;
	size_t i;

	for (i = 0; i < nitems(ok); i++) {
		cr_assert_eq(conf_parse_float(ok[i].s, &v, &cause), 0, "%s",
		    ok[i].s);
		cr_assert_eq(v, ok[i].v, "%s", ok[i].s);
		f = conf_format_float(v);
		cr_assert_str_eq(f, ok[i].canonical, "%s", ok[i].s);
		cr_assert_eq(conf_parse_float(f, &v, &cause), 0);
		cr_assert_eq(v, ok[i].v, "%s read back", f);
		free(f);
	}
	for (i = 0; i < nitems(bad); i++) {
		cr_assert_eq(conf_parse_float(bad[i], &v, &cause), -1, "%s",
		    bad[i]);
		xasprintf(&f,
		    "bad number '%s': give a decimal number, as in "
		    "0.75",
		    bad[i]);
		cr_assert_str_eq(cause, f);
		free(f);
		free(cause);
	}
	cr_assert_eq(conf_parse_float("1e999", &v, &cause), -1);
	cr_assert_str_eq(cause, "bad number '1e999': too large");
	free(cause);
	cr_assert_eq(conf_parse_float("abc", &v, &cause), -1);
	cr_assert_str_eq(cause,
	    "bad number 'abc': give a decimal number, as "
	    "in 0.75");
	free(cause);
}

Test(good, bools)
{
	static const char *const yes[] = { "true", "yes", "on", "1", "TRUE",
		"Yes" };
	static const char *const no[] = { "false", "no", "off", "0", "Off" };
	struct conf *c = conf_new();
	char *cause;
	size_t i;

	for (i = 0; i < nitems(yes); i++) {
		cr_assert_eq(conf_set(c, CONF_STORE_LEVELDB_PARANOID_CHECKS,
		    yes[i], &cause), 0);
		cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_PARANOID_CHECKS),
		    1, "%s", yes[i]);
	}
	for (i = 0; i < nitems(no); i++) {
		cr_assert_eq(conf_set(c, CONF_STORE_LEVELDB_PARANOID_CHECKS,
		    no[i], &cause), 0);
		cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_PARANOID_CHECKS),
		    0, "%s", no[i]);
	}
	conf_free(c);
}

Test(good, addresses)
{
	static const struct {
		const char *s, *host;
		uint16_t port;
	} ok[] = {
		{ "127.0.0.1:6788", "127.0.0.1", 6788 },
		{ "[::1]:6788", "::1", 6788 },
		{ "[fe80::1:2]:1", "fe80::1:2", 1 },
		{ "localhost:6788", "localhost", 6788 },
		{ "mon-a.example.org:65535", "mon-a.example.org", 65535 },
		{ "0.0.0.0:0", "0.0.0.0", 0 },
	};
	static const char *const bad[] = {
		"", "127.0.0.1", "127.0.0.1:", "127.0.0.1:x", "1.2.3:1",
		"::1:1", "[::1]", "[::1]1", "[::1:1", "a..b:1", "a_b:1",
		"host-:1", ":1", "127.0.0.1:65536", "[1.2.3.4]:1",
	};
	char host[64], small[4], *cause;
	uint16_t port;
	size_t i;

	for (i = 0; i < nitems(ok); i++) {
		cr_assert_eq(conf_parse_address(ok[i].s, host, sizeof host,
		    &port, &cause), 0, "%s", ok[i].s);
		cr_assert_str_eq(host, ok[i].host);
		cr_assert_eq(port, ok[i].port);
	}
	for (i = 0; i < nitems(bad); i++) {
		cr_assert_eq(conf_parse_address(bad[i], host, sizeof host,
		    &port, &cause), -1, "%s", bad[i]);
		cr_assert_not_null(strstr(cause, "bad address '"));
		free(cause);
	}
	cr_assert_eq(conf_parse_address("localhost:1", small, sizeof small,
	    &port, &cause), -1);
	cr_assert_str_eq(cause, "bad address 'localhost:1': host name too "
	    "long");
	free(cause);
}

/* ---- the table, conf_set/conf_format, the sample and the man page ---- */

Test(table, sane)
{
	int k, j;
	size_t i;

	for (k = 0; k < CONF_NKEYS; k++) {
		const struct conf_option *o = &conf_options[k];

		cr_assert_not_null(o->name, "key %d has no row", k);
		for (i = 0; conf_sections[i] != NULL; i++) {
			if (strcmp(conf_sections[i], o->section) == 0)
				break;
		}
		cr_assert_not_null(conf_sections[i], "%s", o->name);
		cr_assert(o->help != NULL && *o->help != '\0', "%s", o->name);
		cr_assert_neq(o->help[strlen(o->help) - 1], '.', "%s",
		    o->name);
		/* "# " and the help fit 80 columns in the sample. */
		cr_assert_leq(strlen(o->help), 76, "%s", o->name);
		cr_assert_leq(o->min, o->max, "%s", o->name);
		if (o->type == CONF_FLOAT)
			cr_assert(o->fmin <= o->fmax, "%s", o->name);
		cr_assert_eq(o->type == CONF_ENUM, o->choices != NULL, "%s",
		    o->name);
		for (j = 0; j < k; j++)
			cr_assert(strcmp(conf_options[j].section, o->section) ||
			    strcmp(conf_options[j].name, o->name), "%s twice",
			    o->name);
		/* Keys of one section are together, in section order. */
		if (k > 0 && strcmp(conf_options[k - 1].section, o->section)) {
			cr_assert_str_eq(conf_sections[i - 1],
			    conf_options[k - 1].section);
		}
	}
}

Test(table, decided_defaults_and_flags)
{
	struct conf *c = conf_new();
	int l, g, k;

	cr_assert_str_eq(conf_str(c, CONF_MON_NAME), "a");
	cr_assert_str_eq(conf_str(c, CONF_MON_DATA), "/var/lib/mapmon");
	cr_assert_str_eq(conf_str(c, CONF_MON_BIND), "127.0.0.1:6788");
	cr_assert_eq(conf_int(c, CONF_MON_PROPOSE_INTERVAL), 20);
	cr_assert_eq(conf_int(c, CONF_MON_PROPOSE_MAX_OPS), 65536);
	cr_assert_eq(conf_int(c, CONF_MON_MIN_EPOCHS), 500);
	cr_assert_eq(conf_int(c, CONF_MON_PG_STALE_TIMEOUT), 60000);
	cr_assert_eq(conf_int(c, CONF_MON_OSD_DOWN_OUT_INTERVAL), 600000);
	cr_assert_eq(conf_int(c, CONF_MON_OSD_HEARTBEAT_GRACE), 20000);
	cr_assert_eq(conf_int(c, CONF_MON_OSD_MIN_DOWN_REPORTERS), 2);
	cr_assert_eq(conf_int(c, CONF_MON_OSD_REPORT_TIMEOUT), 900000);
	cr_assert_eq(conf_float(c, CONF_MON_OSD_MIN_IN_RATIO), 0.75);
	cr_assert_eq(conf_int(c, CONF_MON_DATA_SIZE_WARN), 15LL << 30);
	cr_assert_eq(conf_int(c, CONF_MON_DATA_AVAIL_WARN), 30);
	cr_assert_eq(conf_int(c, CONF_MON_DATA_AVAIL_CRIT), 5);
	cr_assert_eq(conf_int(c, CONF_MON_LOG_MAX_ENTRIES), 10000);
	cr_assert_eq(conf_int(c, CONF_MON_MAX_CONNECTIONS), 1024);
	cr_assert_eq(conf_int(c, CONF_MON_MAX_FRAME), 64 << 20);
	cr_assert_eq(conf_int(c, CONF_MON_IDLE_TIMEOUT), 900000);
	cr_assert_eq(conf_int(c, CONF_MON_MAX_CLIENT_OUTPUT), 64 << 20);
	cr_assert_eq(conf_int(c, CONF_MON_MAX_PARTIAL_INPUT), 256 << 20);
	cr_assert_str_eq(conf_str(c, CONF_STORE_BACKEND), "lmdb");
	cr_assert_str_eq(conf_str(c, CONF_STORE_SYNC), "commit");
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_WRITE_BUFFER_SIZE),
	    32 << 20);
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_BLOCK_SIZE), 64 << 10);
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_CACHE_SIZE), 64 << 20);
	cr_assert_str_eq(conf_str(c, CONF_STORE_LEVELDB_COMPRESSION), "none");
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_BLOOM_BITS), 10);
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_MAX_OPEN_FILES), 1000);
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_PARANOID_CHECKS), 0);
	cr_assert_eq(conf_int(c, CONF_STORE_LEVELDB_COMPACT_ON_START), 0);
	cr_assert_eq(conf_int(c, CONF_STORE_LMDB_MAP_SIZE), 1 << 30);
	cr_assert_eq(conf_int(c, CONF_STORE_LMDB_MAX_READERS), 126);
	cr_assert_str_eq(conf_str(c, CONF_LOG_FILE), "");
	cr_assert_eq(conf_int(c, CONF_LOG_MAX_RECENT), 10000);
	for (k = CONF_LOG_DEBUG_MON; k <= CONF_LOG_DEBUG_EVENT; k++) {
		conf_loglevel(c, k, &l, &g);
		cr_assert(l == 1 && g == 5, "%s", conf_options[k].name);
		cr_assert(conf_options[k].runtime);
	}
	cr_assert_str_eq(conf_str(c, CONF_METRICS_BIND), "");

	/* Only [mon] and [log] keys change at run time, and not all. */
	for (k = 0; k < CONF_NKEYS; k++) {
		if (strncmp(conf_options[k].section, "store", 5) == 0 ||
		    strcmp(conf_options[k].section, "metrics") == 0)
			cr_assert(!conf_options[k].runtime, "%s",
			    conf_options[k].name);
	}
	cr_assert(!conf_options[CONF_MON_NAME].runtime);
	cr_assert(!conf_options[CONF_MON_DATA].runtime);
	cr_assert(!conf_options[CONF_MON_BIND].runtime);
	cr_assert(!conf_options[CONF_MON_MAX_CONNECTIONS].runtime);
	cr_assert(!conf_options[CONF_LOG_MAX_RECENT].runtime);
	cr_assert(conf_options[CONF_MON_PROPOSE_INTERVAL].runtime);
	cr_assert(conf_options[CONF_MON_MAX_PARTIAL_INPUT].runtime);
	cr_assert(conf_options[CONF_LOG_FILE].runtime);

	/* Wrong-type questions get a harmless answer. */
	cr_assert_eq(conf_int(c, CONF_MON_NAME), 0);
	cr_assert_eq(conf_int(c, CONF_MON_OSD_MIN_IN_RATIO), 0);
	cr_assert_eq(conf_float(c, CONF_MON_PROPOSE_INTERVAL), 0);
	cr_assert_null(conf_str(c, CONF_MON_OSD_MIN_IN_RATIO));
	cr_assert_null(conf_str(c, CONF_MON_PROPOSE_INTERVAL));
	conf_loglevel(c, CONF_MON_NAME, &l, &g);
	cr_assert(l == 0 && g == 0);
	conf_free(c);
}

Test(table, defaults_are_canonical)
{
	struct conf *c = conf_new();
	char *s;
	int k;

	for (k = 0; k < CONF_NKEYS; k++) {
		s = conf_format(c, k);
		cr_assert_str_eq(s, conf_options[k].def, "%s",
		    conf_options[k].name);
		free(s);
	}
	conf_free(c);
}

Test(table, find_every_key)
{
	static const char *const unknown[] = {
		"", "mon", "name", ".name", "mon.", "mon.nope", "mon.name.x",
		"store.leveldb", "leveldb.block_size", "MON.name",
		"store.lmdb.block_size", "metrics.name",
	};
	char buf[128], small[6];
	size_t i;
	int k;

	for (k = 0; k < CONF_NKEYS; k++) {
		conf_fullname(k, buf, sizeof buf);
		cr_assert_eq(conf_find(buf), k, "%s", buf);
	}
	cr_assert_eq(conf_find("mon.propose_interval"),
	    CONF_MON_PROPOSE_INTERVAL);
	cr_assert_eq(conf_find("store.leveldb.block_size"),
	    CONF_STORE_LEVELDB_BLOCK_SIZE);
	cr_assert_eq(conf_find("log.debug_mon"), CONF_LOG_DEBUG_MON);
	cr_assert_eq(conf_find("metrics.bind"), CONF_METRICS_BIND);
	for (i = 0; i < nitems(unknown); i++)
		cr_assert_eq(conf_find(unknown[i]), -1, "%s", unknown[i]);
	cr_assert_str_eq(conf_fullname(CONF_STORE_LMDB_MAP_SIZE, buf,
	    sizeof buf), "store.lmdb.map_size");
	cr_assert_str_eq(conf_fullname(CONF_MON_BIND, small, sizeof small),
	    "mon.b");
}

/*
 * Values of a key other than its default, all valid: at most
 * CONF_TEST_VALUES (an enum's every choice; the crush types are six).
 */
#define CONF_TEST_VALUES 8
static size_t
other_values(enum conf_key k, char out[CONF_TEST_VALUES][64])
{
	const struct conf_option *o = &conf_options[k];
	char *s;
	size_t n = 0;

	switch (o->type) {
	case CONF_INT:
	case CONF_SIZE:
	case CONF_DURATION:
		s = o->type == CONF_SIZE ? conf_format_size(o->min) :
		    o->type == CONF_DURATION ? conf_format_duration(o->min) :
		    NULL;
		if (s == NULL)
			xasprintf(&s, "%lld", (long long)o->min);
		snprintf(out[n++], 64, "%s", s);
		free(s);
		s = o->type == CONF_SIZE ? conf_format_size(o->max) :
		    o->type == CONF_DURATION ? conf_format_duration(o->max) :
		    NULL;
		if (s == NULL)
			xasprintf(&s, "%lld", (long long)o->max);
		snprintf(out[n++], 64, "%s", s);
		free(s);
		break;
	case CONF_BOOL:
		snprintf(out[n++], 64, "true");
		snprintf(out[n++], 64, "false");
		break;
	case CONF_ENUM:
		for (; o->choices[n] != NULL; n++) {
			cr_assert_lt(n, CONF_TEST_VALUES, "%s", o->name);
			snprintf(out[n], 64, "%s", o->choices[n]);
		}
		break;
	case CONF_STRING:
		snprintf(out[n++], 64, "x y");
		snprintf(out[n++], 64, "\" lead ;trail # \"");
		snprintf(out[n++], 64, "\"\"quoted\"");
		break;
	case CONF_ADDRESS:
		snprintf(out[n++], 64, "[::1]:1");
		snprintf(out[n++], 64, "example.org:65535");
		break;
	case CONF_LOGLEVEL:
		snprintf(out[n++], 64, "0/20");
		snprintf(out[n++], 64, "20/0");
		break;
	case CONF_FLOAT:
		s = conf_format_float(o->fmin);
		snprintf(out[n++], 64, "%s", s);
		free(s);
		s = conf_format_float(o->fmax);
		snprintf(out[n++], 64, "%s", s);
		free(s);
		s = conf_format_float((o->fmin + o->fmax) / 3);
		snprintf(out[n++], 64, "%s", s);
		free(s);
		break;
	}
	return n;
}

Test(table, set_format_round_trip)
{
	struct conf *c = conf_new(), *d = conf_new();
	char vals[CONF_TEST_VALUES][64], *f1, *f2, *cause;
	size_t n, i;
	int k;

	for (k = 0; k < CONF_NKEYS; k++) {
		n = other_values(k, vals);
		cr_assert_geq(n, 2, "%s", conf_options[k].name);
		for (i = 0; i < n; i++) {
			cr_assert_eq(conf_set(c, k, vals[i], &cause), 0,
			    "%s = %s", conf_options[k].name, vals[i]);
			f1 = conf_format(c, k);
			cr_assert_eq(conf_set(d, k, f1, &cause), 0, "%s", f1);
			cr_assert(conf_equal(c, d, k), "%s = %s",
			    conf_options[k].name, f1);
			f2 = conf_format(d, k);
			cr_assert_str_eq(f1, f2);
			free(f1);
			free(f2);
		}
		/* Back to the default through its text. */
		cr_assert_eq(conf_set(c, k, conf_options[k].def, &cause), 0);
		f1 = conf_format(c, k);
		cr_assert_str_eq(f1, conf_options[k].def);
		free(f1);
		cr_assert_eq(conf_line(c, k), 0);
	}
	conf_free(c);
	conf_free(d);
}

Test(table, round_trip_through_a_file)
{
	struct conf *c = conf_new(), *d;
	char vals[CONF_TEST_VALUES][64], *f, *content = xstrdup(""), *tmp,
					     *cause;
	const char *section = "";
	int k;

	/* Every key set to its first other value, written out, loaded back. */
	for (k = 0; k < CONF_NKEYS; k++) {
		other_values(k, vals);
		cr_assert_eq(conf_set(c, k, vals[1], &cause), 0);
		f = conf_format(c, k);
		xasprintf(&tmp, "%s%s%s%s\n%s = %s\n", content,
		    strcmp(section, conf_options[k].section) ? "[" : "",
		    strcmp(section, conf_options[k].section) ?
			conf_options[k].section : "",
		    strcmp(section, conf_options[k].section) ? "]" : "",
		    conf_options[k].name, f);
		free(f);
		free(content);
		content = tmp;
		section = conf_options[k].section;
	}
	d = load_ok(content);
	for (k = 0; k < CONF_NKEYS; k++)
		cr_assert(conf_equal(c, d, k), "%s", conf_options[k].name);
	cr_assert_str_eq(conf_str(d, CONF_MON_DATA), " lead ;trail # ");
	conf_free(c);
	conf_free(d);
	free(content);
}

Test(table, set_errors_leave_the_value)
{
	static const struct {
		enum conf_key key;
		const char *value, *cause;
	} cases[] = {
		{ CONF_MON_PROPOSE_INTERVAL, "x",
		    "mon.propose_interval: bad duration 'x': use a number and "
		    "a unit, as in 20ms or 2s" },
		{ CONF_MON_PROPOSE_INTERVAL, "20",
		    "mon.propose_interval: bad duration '20': give a unit, as "
		    "in 20ms or 2s" },
		{ CONF_MON_PROPOSE_INTERVAL, "0",
		    "mon.propose_interval: value 0 out of range: must be "
		    "between 1ms and 10s" },
		{ CONF_STORE_LEVELDB_BLOCK_SIZE, "128M",
		    "store.leveldb.block_size: value 128M out of range: must "
		    "be between 1K and 64M" },
		{ CONF_STORE_BACKEND, "leveldbb",
		    "store.backend: bad value 'leveldbb': expected lmdb or "
		    "leveldb; did you mean 'leveldb'?" },
		{ CONF_LOG_DEBUG_MON, "21",
		    "log.debug_mon: bad log level '21': levels go from 0 to "
		    "20" },
		{ CONF_MON_NAME, "  ",
		    "mon.name: empty value: give a value, or remove the line "
		    "for the default a" },
		{ CONF_MON_NAME, "a\nb",
		    "mon.name: bad value 'a\nb': control characters are not "
		    "allowed" },
		{ CONF_METRICS_BIND, "nowhere",
		    "metrics.bind: bad address 'nowhere': expected HOST:PORT, "
		    "as in 127.0.0.1:6788" },
		{ CONF_LOG_FILE, "\"/x",
		    "log.file: unterminated quote in '\"/x': close it with a "
		    "'\"' at the end of the value" },
	};
	struct conf *c = conf_new(), *d = conf_new();
	char *cause;
	size_t i;

	for (i = 0; i < nitems(cases); i++) {
		cause = NULL;
		cr_assert_eq(conf_set(c, cases[i].key, cases[i].value, &cause),
		    -1);
		cr_assert_str_eq(cause, cases[i].cause);
		free(cause);
		cr_assert(conf_equal(c, d, cases[i].key));
	}
	conf_free(c);
	conf_free(d);
}

Test(table, equal_and_copy)
{
	struct conf *a = conf_new(), *b, *d;
	char *cause;
	int k;

	cr_assert_eq(conf_set(a, CONF_LOG_DEBUG_OSD, "1/6", &cause), 0);
	cr_assert_eq(conf_set(a, CONF_LOG_FILE, "/tmp/x", &cause), 0);
	b = conf_copy(a);
	d = conf_new();
	for (k = 0; k < CONF_NKEYS; k++)
		cr_assert(conf_equal(a, b, k));
	cr_assert(!conf_equal(a, d, CONF_LOG_DEBUG_OSD));
	cr_assert(!conf_equal(a, d, CONF_LOG_FILE));
	cr_assert(conf_equal(a, d, CONF_LOG_DEBUG_MON));
	/* The copy is independent. */
	cr_assert_eq(conf_set(a, CONF_LOG_FILE, "/tmp/y", &cause), 0);
	cr_assert_str_eq(conf_str(b, CONF_LOG_FILE), "/tmp/x");
	conf_free(a);
	conf_free(b);
	conf_free(d);
}

/* ---- agreement of the table, the sample and the man page ---- */

static char *
src_path(const char *rel)
{
	const char *top = getenv("top_srcdir");
	char *p;

	if (top == NULL || *top == '\0')
		top = CONF_TEST_SRCDIR;
	xasprintf(&p, "%s/%s", top, rel);
	return p;
}

struct seen {
	int count[CONF_NKEYS];
	char *def[CONF_NKEYS];
};

/* Notes key = def met in section at line of file, failing on strangers. */
static int
seen_key(struct seen *s, const char *file, int line, const char *section,
    const char *key, const char *def)
{
	char full[128];
	int k;

	snprintf(full, sizeof full, "%s.%s", section, key);
	k = conf_find(full);
	cr_assert_neq(k, -1, "%s:%d: '%s' is not in the table", file, line,
	    full);
	s->count[k]++;
	free(s->def[k]);
	s->def[k] = xstrdup(def);
	return k;
}

static void
seen_check(struct seen *s, const char *file)
{
	int k;

	for (k = 0; k < CONF_NKEYS; k++) {
		cr_assert_eq(s->count[k], 1, "%s lists %s.%s %d times", file,
		    conf_options[k].section, conf_options[k].name, s->count[k]);
		cr_assert_str_eq(s->def[k], conf_options[k].def,
		    "%s: default of %s.%s", file, conf_options[k].section,
		    conf_options[k].name);
		free(s->def[k]);
	}
}

static char *
chomp(char *line)
{
	line[strcspn(line, "\r\n")] = '\0';
	return line;
}

Test(table, sample_agrees)
{
	char *path = src_path("conf/mapmon.conf"), line[2048], prev[2048];
	char section[64] = "", *eq, *end, *def;
	struct seen s;
	FILE *f;
	int n = 0, k;
	size_t len;

	memset(&s, 0, sizeof s);
	prev[0] = '\0';
	cr_assert_not_null(f = fopen(path, "r"), "%s", path);
	while (fgets(line, sizeof line, f) != NULL) {
		n++;
		chomp(line);
		if (line[0] == '[' && (end = strchr(line, ']')) != NULL) {
			snprintf(section, sizeof section, "%.*s",
			    (int)(end - line - 1), line + 1);
		} else if (line[0] == '#' && line[1] >= 'a' && line[1] <= 'z' &&
		    (eq = strstr(line, " = ")) != NULL) {
			*eq = '\0';
			def = eq + 3;
			len = strlen(def);
			if (len >= 2 && def[0] == '"' && def[len - 1] == '"') {
				def[len - 1] = '\0';
				def++;
			}
			k = seen_key(&s, path, n, section, line + 1, def);
			cr_assert_eq(strncmp(prev, "# ", 2), 0,
			    "%s:%d: no help line above", path, n);
			cr_assert_str_eq(prev + 2, conf_options[k].help,
			    "%s:%d: help differs from the table", path, n);
		}
		snprintf(prev, sizeof prev, "%s", line);
	}
	fclose(f);
	seen_check(&s, path);
	free(path);
}

Test(table, sample_loads_as_is_and_uncommented)
{
	char *path = src_path("conf/mapmon.conf"), line[2048], **errors;
	char *out = NULL, *tmp, *opath;
	struct conf *c, *d = conf_new();
	FILE *f;
	size_t n;
	int k;

	c = conf_load(path, &errors, &n);
	cr_assert_not_null(c, "%s: %s", path, n > 0 ? errors[0] : "");
	conf_free(c);

	/* Uncommenting every key gives a valid file of the defaults. */
	out = xstrdup("");
	cr_assert_not_null(f = fopen(path, "r"));
	while (fgets(line, sizeof line, f) != NULL) {
		xasprintf(&tmp, "%s%s", out,
		    line[0] == '#' && line[1] >= 'a' && line[1] <= 'z' ?
			line + 1 : line);
		free(out);
		out = tmp;
	}
	fclose(f);
	opath = write_file("uncommented.conf", out);
	c = conf_load(opath, &errors, &n);
	cr_assert_not_null(c, "uncommented sample: %s", n > 0 ? errors[0] : "");
	for (k = 0; k < CONF_NKEYS; k++) {
		cr_assert(conf_equal(c, d, k), "%s", conf_options[k].name);
		cr_assert_neq(conf_line(c, k), 0, "%s not set by the sample",
		    conf_options[k].name);
	}
	conf_free(c);
	conf_free(d);
	free(out);
	free(opath);
	free(path);
}

Test(table, man_page_agrees)
{
	char *path = src_path("man/mapmon.conf.5"), line[2048];
	char section[64] = "", key[128], def[256], *b, *e;
	struct seen s;
	FILE *f;
	int n = 0;

	memset(&s, 0, sizeof s);
	cr_assert_not_null(f = fopen(path, "r"), "%s", path);
	while (fgets(line, sizeof line, f) != NULL) {
		n++;
		chomp(line);
		if (strncmp(line, ".Ss ", 4) == 0) {
			section[0] = '\0';
			if ((b = strchr(line, '[')) != NULL &&
			    (e = strchr(b, ']')) != NULL)
				snprintf(section, sizeof section, "%.*s",
				    (int)(e - b - 1), b + 1);
		} else if (strncmp(line, ".It Cm ", 7) == 0) {
			cr_assert_neq(section[0], '\0',
			    "%s:%d: key outside a [section]", path, n);
			def[0] = '\0';
			if (sscanf(line, ".It Cm %127s Ns = Ns Ar %255s", key,
			    def) == 2) {
				seen_key(&s, path, n, section, key, def);
			} else if (sscanf(line, ".It Cm %127s", key) == 1 &&
			    snprintf(def, sizeof def, ".It Cm %s Ns = Ns Qq",
			    key) > 0 && strcmp(line, def) == 0) {
				seen_key(&s, path, n, section, key, "");
			} else
				cr_assert_fail("%s:%d: cannot read '%s'", path,
				    n, line);
		}
	}
	fclose(f);
	seen_check(&s, path);
	free(path);
}

Test(table, man_page_example_loads)
{
	char *path = src_path("man/mapmon.conf.5"), line[2048], *out, *tmp;
	struct conf *c;
	FILE *f;
	int in_examples = 0, in_block = 0, blocks = 0;

	out = xstrdup("");
	cr_assert_not_null(f = fopen(path, "r"), "%s", path);
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, ".Sh ", 4) == 0)
			in_examples = strcmp(line, ".Sh EXAMPLES\n") == 0;
		else if (in_examples &&
		    strncmp(line, ".Bd -literal", 12) == 0) {
			in_block = 1;
			blocks++;
		} else if (in_block && strncmp(line, ".Ed", 3) == 0)
			in_block = 0;
		else if (in_block) {
			xasprintf(&tmp, "%s%s", out, line);
			free(out);
			out = tmp;
		}
	}
	fclose(f);
	cr_assert_eq(blocks, 1, "one example in EXAMPLES");
	c = load_ok(out);
	cr_assert_eq(conf_int(c, CONF_STORE_BACKEND), CONF_BACKEND_LEVELDB);
	conf_free(c);
	free(out);
	free(path);
}
