/* test_log.c: levels, the ring, the dump, escaping, targets, crashes. */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

static char tmpdir[64];
static char logpath[128];

/* The gathered entries, as `mapmon log dump` would see them. */
struct entries {
	char *text[256];
	char *subsys[256];
	int level[256];
	size_t n;
};

static void
setup(void)
{
	char *cause = NULL;

	strcpy(tmpdir, "/tmp/mapmon-test-log-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(logpath, sizeof logpath, "%s/mapmond.log", tmpdir);
	log_init("test_log", 64);
	cr_assert_eq(log_open(logpath, &cause), 0, "%s", cause);
}

static void
teardown(void)
{
	struct dirent *de;
	char path[512];
	DIR *d;

	if ((d = opendir(tmpdir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s", tmpdir,
			    de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(tmpdir);
}

static char *
slurp(const char *path)
{
	char *buf;
	size_t len = 0, size = 4096;
	ssize_t n;
	int fd;

	cr_assert_neq(fd = open(path, O_RDONLY), -1, "open %s", path);
	buf = malloc(size);
	while ((n = read(fd, buf + len, size - len - 1)) > 0) {
		len += (size_t)n;
		if (size - len < 2)
			buf = realloc(buf, size *= 2);
	}
	buf[len] = '\0';
	close(fd);
	return buf;
}

/* What log_dump_recent writes, as a string. */
static char *
dump(void)
{
	char path[160];
	char *s;
	int fd;

	snprintf(path, sizeof path, "%s/dump", tmpdir);
	cr_assert_neq(fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), -1);
	log_dump_recent(fd);
	close(fd);
	s = slurp(path);
	unlink(path);
	return s;
}

static void
collect_cb(const struct log_entry_view *v, void *arg)
{
	struct entries *e = arg;

	if (e->n == nitems(e->text))
		return;
	cr_assert_eq(strlen(v->text), v->len);
	e->text[e->n] = strdup(v->text);
	e->subsys[e->n] = strdup(v->subsys_name);
	e->level[e->n] = v->level;
	e->n++;
}

static void
collect(struct entries *e)
{
	memset(e, 0, sizeof *e);
	log_recent_foreach(collect_cb, e);
}

static void
entries_free(struct entries *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		free(e->text[i]);
		free(e->subsys[i]);
	}
}

static int
count_lines(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

TestSuite(log, .init = setup, .fini = teardown);

Test(log, gathered_but_not_written)
{
	struct entries e;
	char *file;

	log_set_level(LOG_MON, 5, 20);
	dout(LOG_MON, 10, "pg %d.%x is %s", 3, 0x1f, "peering");
	collect(&e);
	cr_assert_eq(e.n, 1);
	cr_assert_str_eq(e.text[0], "pg 3.1f is peering");
	cr_assert_str_eq(e.subsys[0], "mon");
	cr_assert_eq(e.level[0], 10);
	file = slurp(logpath);
	cr_assert_str_eq(file, "", "level 10 > L=5 was written: %s", file);
	free(file);
	entries_free(&e);
}

Test(log, written_and_gathered)
{
	struct entries e;
	char *file;

	log_set_level(LOG_STORE, 5, 20);
	dout(LOG_STORE, 3, "opened %s with %zu maps", "/var/lib/x", (size_t)7);
	collect(&e);
	cr_assert_eq(e.n, 1);
	cr_assert_str_eq(e.text[0], "opened /var/lib/x with 7 maps");
	file = slurp(logpath);
	cr_assert_eq(count_lines(file), 1);
	cr_assert_not_null(strstr(file, " store 3 opened /var/lib/x with 7 "
	    "maps\n"), "%s", file);
	free(file);
	entries_free(&e);
}

Test(log, written_but_not_gathered)
{
	struct entries e;
	char *file;

	log_set_level(LOG_NET, 10, 1);
	dout(LOG_NET, 5, "listening on port %u", 6789u);
	collect(&e);
	cr_assert_eq(e.n, 0);
	file = slurp(logpath);
	cr_assert_not_null(strstr(file, " net 5 listening on port 6789\n"));
	free(file);
	entries_free(&e);
}

Test(log, neither_written_nor_gathered)
{
	struct entries e;
	char *file;

	log_set_level(LOG_PG, 5, 20);
	dout(LOG_PG, 21, "too verbose %d", 1);
	dout(LOG_OSD, 1, "another subsystem at 0/0 %d", 2);
	collect(&e);
	cr_assert_eq(e.n, 0);
	cr_assert_eq(log_gathered_count(), 0);
	file = slurp(logpath);
	cr_assert_str_eq(file, "");
	free(file);
}

Test(log, levels_set_get_find_and_max)
{
	int l, g;

	log_set_level(LOG_COMMIT, 1, 20);
	log_get_level(LOG_COMMIT, &l, &g);
	cr_assert_eq(l, 1);
	cr_assert_eq(g, 20);
	cr_assert_eq(log_max_level[LOG_COMMIT], 20);
	log_set_level(LOG_COMMIT, 150, -3);
	log_get_level(LOG_COMMIT, &l, &g);
	cr_assert_eq(l, LOG_LEVEL_MAX);
	cr_assert_eq(g, 0);
	cr_assert_eq(log_subsys_find("commit"), LOG_COMMIT);
	cr_assert_eq(log_subsys_find("event"), LOG_EVENT);
	cr_assert_eq(log_subsys_find("nope"), -1);

	/* Without a ring, G does not count. */
	log_init("test_log", 0);
	log_set_level(LOG_CONF, 2, 20);
	cr_assert_eq(log_max_level[LOG_CONF], 2);
}

Test(log, ring_wraps_keeping_newest_in_order)
{
	struct entries e;
	size_t i;
	char want[32];

	log_init("test_log", 8);
	log_set_level(LOG_MON, 0, 20);
	for (i = 0; i < 21; i++)
		dout(LOG_MON, 10, "entry %zu", i);
	collect(&e);
	cr_assert_eq(e.n, 8);
	for (i = 0; i < 8; i++) {
		snprintf(want, sizeof want, "entry %zu", 13 + i);
		cr_assert_str_eq(e.text[i], want);
	}
	cr_assert_eq(log_gathered_count(), 21);
	entries_free(&e);
}

Test(log, dump_format)
{
	regex_t re;
	char *d, *line, *save = NULL;
	int n = 0;

	log_set_level(LOG_MON, 0, 20);
	log_set_level(LOG_CLIENT, 0, 20);
	dout(LOG_MON, 5, "first %d", 1);
	dout(LOG_CLIENT, 12, "second %s", "two");
	log_warnx("third");
	d = dump();
	cr_assert_eq(regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:"
	    "[0-9]{2}\\.[0-9]{6}Z [0-9a-f]+ (mon|client|-) [0-9]+ ",
	    REG_EXTENDED | REG_NOSUB), 0);
	for (line = strtok_r(d, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save), n++) {
		if (n == 0) {
			cr_assert_str_eq(line,
			    "--- begin dump of recent events ---");
			continue;
		}
		if (n == 4) {
			cr_assert_str_eq(line,
			    "--- end dump of recent events ---");
			continue;
		}
		cr_assert_eq(regexec(&re, line, 0, NULL, 0), 0, "bad line: %s",
		    line);
	}
	cr_assert_eq(n, 5);
	regfree(&re);
	free(d);

	d = dump();
	cr_assert_not_null(strstr(d, "Z ")); /* stamps are UTC */
	cr_assert_not_null(strstr(d, " mon 5 first 1\n"), "%s", d);
	cr_assert_not_null(strstr(d, " client 12 second two\n"), "%s", d);
	cr_assert_not_null(strstr(d, " - 0 third\n"), "%s", d);
	free(d);
}

Test(log, dump_stamp_is_now_in_utc)
{
	char *d, want[32];
	struct tm tm;
	time_t now = time(NULL);

	log_set_level(LOG_MON, 0, 20);
	dout(LOG_MON, 1, "now");
	d = dump();
	gmtime_r(&now, &tm);
	strftime(want, sizeof want, "\n%Y-%m-%dT%H:", &tm);
	cr_assert_not_null(strstr(d, want), "%s not in %s", want, d);
	free(d);
}

static void
stamp_cb(const struct log_entry_view *v, void *arg)
{
	*(struct timespec *)arg = v->stamp;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* The stamp of an entry lies between clock readings taken around it. */
static void
check_stamp_between(void)
{
	struct timespec before, after, got = {0, 0};

	log_set_level(LOG_MON, 0, 20);
	clock_gettime(CLOCK_REALTIME, &before);
	dout(LOG_MON, 1, "stamped");
	clock_gettime(CLOCK_REALTIME, &after);
	usleep(20000);	/* the dump's clock sample comes later */
	log_recent_foreach(stamp_cb, &got);
	/* 1 ms of slack for the TSC conversion's rounding and jitter. */
	cr_assert_geq(ts_ns(&got), ts_ns(&before) - 1000000, "%lld < %lld",
	    (long long)ts_ns(&got), (long long)ts_ns(&before));
	cr_assert_leq(ts_ns(&got), ts_ns(&after) + 1000000, "%lld > %lld",
	    (long long)ts_ns(&got), (long long)ts_ns(&after));
}

Test(log, stamps_match_the_clock)
{
	check_stamp_between();
}

Test(log, stamps_match_the_clock_without_tsc)
{
	setenv("MAPMON_LOG_CLOCK", "realtime", 1);
	log_init("test_log", 16);
	check_stamp_between();
}

static int evaluated;

static int
side_effect(void)
{
	evaluated++;
	return 42;
}

Test(log, arguments_not_evaluated_when_off)
{
	struct entries e;

	log_set_level(LOG_PG, 5, 10);
	dout(LOG_PG, 11, "value %d", side_effect());
	dout(LOG_PG, 30, "value %d %d", side_effect(), side_effect());
	cr_assert_eq(evaluated, 0);

	/* Once each when on, even when both written and gathered. */
	dout(LOG_PG, 3, "value %d", side_effect());
	cr_assert_eq(evaluated, 1);
	collect(&e);
	cr_assert_eq(e.n, 1);
	cr_assert_str_eq(e.text[0], "value 42");
	entries_free(&e);
}

Test(log, strings_copied_at_gather)
{
	struct entries e;
	char buf[32];

	log_set_level(LOG_CLIENT, 0, 20);
	strcpy(buf, "original");
	dout(LOG_CLIENT, 10, "name %s", buf);
	strcpy(buf, "changed!");
	dout(LOG_CLIENT, 10, "null %s", (char *)NULL);
	collect(&e);
	cr_assert_eq(e.n, 2);
	cr_assert_str_eq(e.text[0], "name original");
	cr_assert_str_eq(e.text[1], "null (null)");
	entries_free(&e);
}

Test(log, long_strings_truncated_and_marked)
{
	struct entries e;
	char big[1000];

	log_set_level(LOG_CLIENT, 0, 20);
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	dout(LOG_CLIENT, 10, "<%s> and <%s>", big, "after");
	collect(&e);
	cr_assert_eq(e.n, 1);
	/* The first string keeps what fits and is marked; the next is empty. */
	cr_assert_eq(strncmp(e.text[0], "<aaaa", 5), 0);
	cr_assert_not_null(strstr(e.text[0], "a[...]> and <[...]>"), "%s",
	    e.text[0]);
	cr_assert_eq(strspn(e.text[0] + 1, "a"), LOG_SLOT_DATA);
	entries_free(&e);
}

Test(log, precision_bounds_the_copy)
{
	struct entries e;
	char unterminated[4] = {'a', 'b', 'c', 'd'};

	log_set_level(LOG_NET, 0, 20);
	/* No NUL: reading past the precision would be a bug (ASan sees it). */
	dout(LOG_NET, 10, "[%.*s] [%.2s]", 4, unterminated, unterminated);
	collect(&e);
	cr_assert_eq(e.n, 1);
	cr_assert_str_eq(e.text[0], "[abcd] [ab]");
	entries_free(&e);
}

Test(log, control_characters_and_bad_utf8_escaped)
{
	struct entries e;
	char *file, *s;

	log_set_level(LOG_CLIENT, 10, 20);
	dout(LOG_CLIENT, 5, "pool %s", "a\nb\tc\x1b[31m\\d");
	dout(LOG_CLIENT, 5, "name %s|%c", "caf\xc3\xa9 \xff\xc3( \xc2\x9b \xed\xa0\x80", 7);
	collect(&e);
	cr_assert_eq(e.n, 2);
	cr_assert_str_eq(e.text[0], "pool a\\nb\\tc\\x1b[31m\\\\d");
	cr_assert_str_eq(e.text[1],
	    "name caf\xc3\xa9 \\xff\\xc3( \\xc2\\x9b \\xed\\xa0\\x80|\\x07");
	file = slurp(logpath);
	cr_assert_eq(count_lines(file), 2, "one entry, one line: %s", file);
	cr_assert_not_null(strstr(file, "pool a\\nb\\tc\\x1b[31m\\\\d\n"));
	free(file);
	entries_free(&e);

	s = log_escape("ok \xe2\x9c\x93\r\x7f\xf5", SIZE_MAX);
	cr_assert_str_eq(s, "ok \xe2\x9c\x93\\r\\x7f\\xf5");
	free(s);
	s = log_escape("abcdef", 3);
	cr_assert_str_eq(s, "abc");
	free(s);
}

Test(log, always_on_lines_escaped)
{
	char *file;

	log_warnx("from client: %s", "evil\nfake line");
	file = slurp(logpath);
	cr_assert_eq(count_lines(file), 1, "%s", file);
	cr_assert_not_null(strstr(file, " - 0 from client: evil\\nfake line\n"));
	free(file);
}

/*
 * An always-on line is written whole up to LOG_LINE_MAX, though the ring's
 * slot keeps only its first part (the slot's cut must not cut the file's
 * line), and a longer one is cut there and marked.
 */
Test(log, always_on_lines_written_whole_past_the_slot)
{
	char *file, *line, *mid, *big;

	mid = malloc(601);
	big = malloc(6001);
	cr_assert(mid != NULL && big != NULL);
	memset(mid, 'm', 600);
	mid[600] = '\0';
	memset(big, 'b', 6000);
	big[6000] = '\0';
	log_warnx("mid %s|end", mid);
	log_warnx("big %s|end", big);
	file = slurp(logpath);
	cr_assert_eq(count_lines(file), 2, "%s", file);
	line = strstr(file, " - 0 mid ");
	cr_assert_not_null(line);
	cr_assert(strncmp(line + 9, mid, 600) == 0);
	cr_assert(strncmp(line + 609, "|end\n", 5) == 0, "%.40s", line + 600);
	line = strstr(file, " - 0 big ");
	cr_assert_not_null(line);
	cr_assert_not_null(strstr(line, "bbbb[...]\n"));
	cr_assert_null(strstr(line, "|end"));
	cr_assert_leq(strchr(line, '\n') - line, LOG_LINE_MAX);
	free(file);
	free(mid);
	free(big);
}

Test(log, conversions_match_printf)
{
	struct entries e;
	char want[256];
	void *p = &e;
	int w = 6;

	log_set_level(LOG_MON, 0, 20);
	log_set_level(LOG_OSD, 20, 0);
#define BOTH(fmt, ...)                                                       \
	do {                                                                 \
		dout(LOG_MON, 10, fmt, __VA_ARGS__);                         \
		dout(LOG_OSD, 10, fmt, __VA_ARGS__);                         \
	} while (0)
	BOTH("%5d|%-5d|%05d|%+d|%x|%#o|%hhd|%hd", 42, 42, 42, 42, 255, 8,
	    (signed char)-3, (short)-300);
	BOTH("%ld|%llu|%zu|%zd|%jd|%td|%lx", -5L, 18446744073709551615ULL,
	    (size_t)123, (ssize_t)-1, (intmax_t)-9, (ptrdiff_t)77, 0xabcL);
	BOTH("%.3f|%8.2e|%g|%-8.1f|%a", 3.14159, 12345.678, 0.0001, 2.5, 1.0);
	BOTH("%*d|%-*d|%.*f|%*.*s|%%|%c", w, 7, w, 7, 2, 1.2345, 5, 2, "xyz",
	    'Q');
	BOTH("%p|%10s|%-4s|", p, "right", "l");
#undef BOTH
	collect(&e);
	cr_assert_eq(e.n, 5);
	snprintf(want, sizeof want, "%5d|%-5d|%05d|%+d|%x|%#o|%hhd|%hd", 42, 42,
	    42, 42, 255, 8, (signed char)-3, (short)-300);
	cr_assert_str_eq(e.text[0], want);
	snprintf(want, sizeof want, "%ld|%llu|%zu|%zd|%jd|%td|%lx", -5L,
	    18446744073709551615ULL, (size_t)123, (ssize_t)-1, (intmax_t)-9,
	    (ptrdiff_t)77, 0xabcL);
	cr_assert_str_eq(e.text[1], want);
	snprintf(want, sizeof want, "%.3f|%8.2e|%g|%-8.1f|%a", 3.14159,
	    12345.678, 0.0001, 2.5, 1.0);
	cr_assert_str_eq(e.text[2], want);
	snprintf(want, sizeof want, "%*d|%-*d|%.*f|%*.*s|%%|%c", w, 7, w, 7, 2,
	    1.2345, 5, 2, "xyz", 'Q');
	cr_assert_str_eq(e.text[3], want);
	snprintf(want, sizeof want, "%p|%10s|%-4s|", p, "right", "l");
	cr_assert_str_eq(e.text[4], want);

	/* The written lines (formatted from the va_list) say the same. */
	{
		char *file = slurp(logpath), *line, *save = NULL;
		size_t i = 0;

		for (line = strtok_r(file, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save), i++) {
			char *msg = strstr(line, " osd 10 ");

			cr_assert_not_null(msg);
			cr_assert_str_eq(msg + 8, e.text[i]);
		}
		cr_assert_eq(i, 5);
		free(file);
	}
	entries_free(&e);
}

Test(log, unsupported_formats_fall_back_to_eager)
{
	struct entries e;
	long double ld = 2.5L;

	log_set_level(LOG_MON, 0, 20);
	dout(LOG_MON, 10, "%2$s-%1$d", 7, "seven");
	dout(LOG_MON, 10, "ld %.2Lf", ld);
	errno = ENOENT;
	dout(LOG_MON, 10, "errno says %m");
	collect(&e);
	cr_assert_eq(e.n, 3);
	cr_assert_str_eq(e.text[0], "seven-7");
	cr_assert_str_eq(e.text[1], "ld 2.50");
	cr_assert_str_eq(e.text[2], "errno says No such file or directory");
	cr_assert_eq(errno, ENOENT);
	entries_free(&e);
}

Test(log, reopen_after_rename)
{
	char moved[160], *cause = NULL, *old, *cur;

	log_set_level(LOG_MON, 5, 0);
	dout(LOG_MON, 1, "before rotation");
	snprintf(moved, sizeof moved, "%s.1", logpath);
	cr_assert_eq(rename(logpath, moved), 0);
	dout(LOG_MON, 1, "still to the renamed file");
	cr_assert_eq(log_reopen(&cause), 0, "%s", cause);
	dout(LOG_MON, 1, "after rotation");

	old = slurp(moved);
	cur = slurp(logpath);
	cr_assert_not_null(strstr(old, "before rotation\n"));
	cr_assert_not_null(strstr(old, "still to the renamed file\n"));
	cr_assert_null(strstr(old, "after rotation"));
	cr_assert_eq(count_lines(cur), 1, "%s", cur);
	cr_assert_not_null(strstr(cur, "after rotation\n"));
	cr_assert_str_eq(log_target(), logpath);
	free(old);
	free(cur);
}

Test(log, open_failure_keeps_target)
{
	char *cause = NULL, bad[200], *file;

	snprintf(bad, sizeof bad, "%s/no/such/dir/log", tmpdir);
	cr_assert_eq(log_open(bad, &cause), -1);
	cr_assert_not_null(cause);
	cr_assert_not_null(strstr(cause, bad), "%s", cause);
	free(cause);
	log_info("still here");
	file = slurp(logpath);
	cr_assert_not_null(strstr(file, " - 0 still here\n"));
	free(file);
	cr_assert_eq(log_open("stderr", &cause), 0);
	cr_assert_str_eq(log_target(), "stderr");
}

Test(log, warn_appends_strerror_and_keeps_errno)
{
	char *file;

	errno = EACCES;
	log_warn("open %s", "/etc/x");
	cr_assert_eq(errno, EACCES);
	errno = EIO;
	log_warnx("plain");
	cr_assert_eq(errno, EIO);
	log_set_level(LOG_MON, 5, 5);
	dout(LOG_MON, 1, "dout %s", "too");
	cr_assert_eq(errno, EIO);
	file = slurp(logpath);
	cr_assert_not_null(strstr(file, " - 0 open /etc/x: Permission denied\n"),
	    "%s", file);
	cr_assert_not_null(strstr(file, " - 0 plain\n"));
	free(file);
}

/* Runs fn in a child with crash handlers; returns its stderr and status. */
static char *
crash_child(void (*fn)(void), int *status)
{
	char errpath[160];
	pid_t pid;
	int fd;

	snprintf(errpath, sizeof errpath, "%s/stderr", tmpdir);
	fflush(NULL);
	cr_assert_neq(pid = fork(), -1);
	if (pid == 0) {
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, STDERR_FILENO);
		close(fd);
		log_install_crash_handlers();
		fn();
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, status, 0), pid);
	return slurp(errpath);
}

static void
abort_child(void)
{
	log_set_level(LOG_COMMIT, 0, 20);
	dout(LOG_COMMIT, 10, "commit %d sealed", 1);
	dout(LOG_COMMIT, 10, "commit %d written", 2);
	raise(SIGABRT);
}

Test(log, crash_dump_on_sigabrt)
{
	char *err, *file, *b, *m1, *m2, *e;
	int status;

	err = crash_child(abort_child, &status);
	cr_assert(WIFSIGNALED(status), "child exited with %d", status);
	cr_assert_eq(WTERMSIG(status), SIGABRT);
	file = slurp(logpath);
	/* Both to the log file and to stderr, which differ. */
	for (int i = 0; i < 2; i++) {
		const char *s = i == 0 ? file : err;

		cr_assert_not_null(strstr(s, "*** caught signal SIGABRT ***"),
		    "%s", s);
		b = strstr(s, "--- begin dump of recent events ---\n");
		m1 = strstr(s, " commit 10 commit 1 sealed\n");
		m2 = strstr(s, " commit 10 commit 2 written\n");
		e = strstr(s, "--- end dump of recent events ---\n");
		cr_assert(b && m1 && m2 && e && b < m1 && m1 < m2 && m2 < e,
		    "%s", s);
	}
	free(err);
	free(file);
}

static void
fatal_child(void)
{
	log_set_level(LOG_STORE, 0, 20);
	dout(LOG_STORE, 10, "last words");
	errno = ENOSPC;
	fatal("invariant %s broken", "x");
}

Test(log, fatal_logs_dumps_once_and_aborts)
{
	char *err, *file, *first;
	int status;

	err = crash_child(fatal_child, &status);
	cr_assert(WIFSIGNALED(status));
	cr_assert_eq(WTERMSIG(status), SIGABRT);
	file = slurp(logpath);
	cr_assert_not_null(strstr(file, " - 0 invariant x broken: No space "
	    "left on device\n"), "%s", file);
	first = strstr(file, "--- begin dump of recent events ---");
	cr_assert_not_null(first);
	cr_assert_null(strstr(first + 1, "--- begin dump"), "dumped twice");
	cr_assert_not_null(strstr(err, " store 10 last words\n"), "%s", err);
	free(err);
	free(file);
}

static void
segv_child(void)
{
	volatile int *p;

	/* A real fault (not a NULL store, which UBSan would catch first). */
	p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	log_set_level(LOG_NET, 0, 20);
	dout(LOG_NET, 10, "about to fault");
	*p = 1;
}

Test(log, crash_dump_on_sigsegv)
{
	char *err;
	int status;

	err = crash_child(segv_child, &status);
	cr_assert(WIFSIGNALED(status));
	cr_assert_eq(WTERMSIG(status), SIGSEGV);
	cr_assert_not_null(strstr(err, "*** caught signal SIGSEGV ***"));
	/* The faulting stack, a frame a line, after the signal's line. */
	cr_assert_not_null(strstr(err, "***\nbacktrace:\n"), "%s", err);
	cr_assert_not_null(strstr(err, "(+0x"), "%s", err);
	cr_assert_not_null(strstr(err, " net 10 about to fault\n"), "%s", err);
	free(err);
}

#define NTHREADS 4
#define PER_THREAD 2000

static void *
writer(void *arg)
{
	int t = (int)(intptr_t)arg, i;
	char tag[32];

	for (i = 0; i < PER_THREAD; i++) {
		snprintf(tag, sizeof tag, "t%d-%d", t, i);
		dout(LOG_COMMIT, 10, "thread %d seq %d tag %s check %d", t, i,
		    tag, t * 100000 + i);
	}
	return NULL;
}

Test(log, concurrent_threads_lose_and_tear_nothing)
{
	pthread_t th[NTHREADS];
	char *d, *line, *save = NULL, tag[32], want[32];
	int t, i, seq, check, next[NTHREADS] = {0}, n = 0;

	log_init("test_log", NTHREADS * PER_THREAD);
	log_set_level(LOG_COMMIT, 0, 20);
	for (t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, writer, (void *)(intptr_t)t);
	for (t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	cr_assert_eq(log_gathered_count(), NTHREADS * PER_THREAD);

	d = dump();
	for (line = strtok_r(d, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *m = strstr(line, " commit 10 ");

		if (m == NULL)
			continue;
		cr_assert_eq(sscanf(m, " commit 10 thread %d seq %d tag %31s "
		    "check %d", &t, &seq, tag, &check), 4, "torn: %s", line);
		cr_assert(t >= 0 && t < NTHREADS);
		/* Each thread's entries appear once each, in its order. */
		cr_assert_eq(seq, next[t], "thread %d: %d after %d", t, seq,
		    next[t]);
		next[t]++;
		snprintf(want, sizeof want, "t%d-%d", t, seq);
		cr_assert_str_eq(tag, want);
		cr_assert_eq(check, t * 100000 + seq);
		n++;
	}
	cr_assert_eq(n, NTHREADS * PER_THREAD);
	for (i = 0; i < NTHREADS; i++)
		cr_assert_eq(next[i], PER_THREAD);
	free(d);
}

static void
noop_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

Test(log, libevent_messages_routed)
{
	struct event_base *base;
	struct event *ev;
	struct entries e;
	size_t i, found = 0;
	int fds[2];

	log_set_level(LOG_EVENT, 0, 20);
	log_event_callback_install();
	event_enable_debug_logging(EVENT_DBG_ALL);
	cr_assert_eq(pipe(fds), 0);
	base = event_base_new();
	ev = event_new(base, fds[0], EV_READ, noop_cb, NULL);
	event_add(ev, NULL);
	event_free(ev);
	event_base_free(base);
	close(fds[0]);
	close(fds[1]);

	collect(&e);
	for (i = 0; i < e.n; i++) {
		if (strcmp(e.subsys[i], "event") == 0 && e.level[i] == 20 &&
		    strstr(e.text[i], "event_add") != NULL)
			found++;
	}
	cr_assert_geq(found, 1, "no libevent debug message in %zu entries",
	    e.n);
	entries_free(&e);
}
