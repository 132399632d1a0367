/*
 * test_store_reopen.c: the LevelDB store gets over a failed write by
 * itself.  LevelDB keeps a failed background write's error until the DB is
 * reopened (and a failed log append leaves the log unsafe to go on), so
 * store_leveldb.c reopens the DB at the next commit.  The fault wrapper of
 * store_fault.c fails commits before they reach LevelDB, so it cannot
 * show this: these tests make LevelDB's own writes fail.
 *
 *  - disk_full: a small tmpfs (mounted in a private mount namespace; the
 *    test is skipped without the privilege) fills up; commits fail with
 *    STORE_E_NOSPC while a second thread keeps reading; once space returns
 *    the next commit reopens the DB and succeeds; then the writer stops
 *    dead, as kill -9 would, and at the next open every acknowledged
 *    commit is there whole, and nothing of a refused one.  (Without the
 *    reopen, the commits that follow a torn log record are lost there.)
 *  - reopen_fails: the store's directory becomes read-only, so a write
 *    fails and so does the reopen: reads then fail cleanly (STORE_E_IO,
 *    saying why) rather than touch a closed DB, and once the directory is
 *    writable again the next commit opens it.  As root the test runs with
 *    the effective uid of nobody, so that the permissions hold.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/enc.h"
#include "common/mapmon.h"
#include "store/store.h"

#define KEYS_PER_COMMIT 4
#define VALUE_SIZE 1000
#define MAX_COMMITS 20000
#define NOBODY 65534

static char tmpdir[64];
static char mnt[128];
static char path[192];
static int mounted;
static uid_t saved_euid;

/* Every commit's result, by commit number: 1 acknowledged, -1 refused. */
static signed char result[MAX_COMMITS];

static int
rm_one(const char *p, mapmon_unused const struct stat *sb,
    mapmon_unused int flag, mapmon_unused struct FTW *ftw)
{
	return remove(p);
}

static void
setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/mapmon-reopen-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(mnt, sizeof mnt, "%s/mnt", tmpdir);
	cr_assert_eq(mkdir(mnt, 0700), 0);
	snprintf(path, sizeof path, "%s/store", mnt);
	mounted = 0;
	saved_euid = geteuid();
	memset(result, 0, sizeof result);
}

static void
teardown(void)
{
	if (geteuid() != saved_euid && seteuid(saved_euid) == -1)
		cr_log_warn("seteuid back: %s", strerror(errno));
	if (mounted)
		umount2(mnt, MNT_DETACH);
	mounted = 0;
	if (tmpdir[0] != '\0') {
		chmod(path, 0700);
		nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		tmpdir[0] = '\0';
	}
}

TestSuite(reopen, .init = setup, .fini = teardown);

/* A skipped test does not run .fini: clean up first. */
#define SKIP(...) do {							\
	teardown();							\
	cr_skip_test(__VA_ARGS__);					\
} while (0)

static void
need_leveldb(void)
{
	if (!store_backend_known("leveldb"))
		SKIP("LevelDB is not compiled in");
}

/* Open (or create) the LevelDB store with a small memtable. */
static struct store *
open_store(int flags)
{
	struct store_options o;
	struct store *s = NULL;
	char *cause = NULL;
	int rc;

	store_options_defaults(&o);
	o.backend = "leveldb";
	o.sync = STORE_SYNC_COMMIT;
	o.leveldb.write_buffer_size = 64 << 10;	/* LevelDB's least */
	o.leveldb.cache_size = 1 << 20;
	rc = store_open(path, &o, flags, &s, &cause);
	cr_assert_eq(rc, 0, "store_open %s: %s", path, cause ? cause : "");
	return s;
}

static void
make_key(uint8_t *key, uint32_t c, int j)
{
	key[0] = 'k';
	enc_put_be32(key + 1, c);
	key[5] = (uint8_t)j;
}

static void
make_value(uint8_t *val, uint32_t c, int j)
{
	size_t i;

	for (i = 0; i < VALUE_SIZE; i++)
		val[i] = (uint8_t)(c * 7 + (uint32_t)j * 13 + i);
}

/* Commit number c: KEYS_PER_COMMIT records in one batch. */
static int
commit_one(struct store *s, uint32_t c, char **cause)
{
	struct store_batch *b = store_batch_new();
	uint8_t key[6], val[VALUE_SIZE];
	int j, rc;

	for (j = 0; j < KEYS_PER_COMMIT; j++) {
		make_key(key, c, j);
		make_value(val, c, j);
		store_batch_put(b, key, sizeof key, val, sizeof val);
	}
	rc = store_commit(s, b, cause);
	store_batch_free(b);
	cr_assert_lt(c, MAX_COMMITS);
	result[c] = rc == 0 ? 1 : -1;
	return rc;
}

/* How many of commit c's records are there, with the right value. */
static int
records_of(struct store *s, uint32_t c)
{
	uint8_t key[6], want[VALUE_SIZE];
	void *val;
	size_t vlen;
	char *cause = NULL;
	int j, rc, n = 0;

	for (j = 0; j < KEYS_PER_COMMIT; j++) {
		make_key(key, c, j);
		make_value(want, c, j);
		rc = store_get(s, key, sizeof key, &val, &vlen, &cause);
		cr_assert(rc == 0 || rc == STORE_NOTFOUND, "get %u/%d: %s", c,
		    j, cause ? cause : store_strerror(rc));
		if (rc != 0)
			continue;
		cr_assert_eq(vlen, sizeof want, "commit %u: value size", c);
		cr_assert_eq(memcmp(val, want, vlen), 0, "commit %u: value", c);
		free(val);
		n++;
	}
	return n;
}

/*
 * Every acknowledged commit is there whole, no refused one is there at
 * all, and a scan sees exactly those records.  Returns the number of
 * acknowledged commits.
 */
static uint32_t
check_contents(struct store *s, uint32_t ncommits)
{
	struct store_iter *it;
	const void *k, *v;
	size_t klen, vlen;
	char *cause = NULL;
	uint32_t c, acked = 0, scanned = 0;
	int rc;

	for (c = 0; c < ncommits; c++) {
		if (result[c] == 1) {
			cr_assert_eq(records_of(s, c), KEYS_PER_COMMIT,
			    "acknowledged commit %u is not whole", c);
			acked++;
		} else if (result[c] == -1)
			cr_assert_eq(records_of(s, c), 0,
			    "refused commit %u is visible", c);
	}
	it = store_iter_new(s, "k", 1, "l", 1, &cause);
	cr_assert_not_null(it, "iterator: %s", cause ? cause : "");
	while ((rc = store_iter_next(it, &k, &klen, &v, &vlen)) == 1)
		scanned++;
	cr_assert_eq(rc, 0, "scan: %s", store_iter_cause(it));
	store_iter_free(it);
	cr_assert_eq(scanned, acked * KEYS_PER_COMMIT, "scan saw %u records, "
	    "%u acknowledged commits", scanned, acked);
	return acked;
}

/* The backend's statistics text holds needle. */
static int
stat_says(struct store *s, const char *needle)
{
	struct store_stats st;
	char *cause = NULL;
	int found;

	cr_assert_eq(store_stat(s, &st, &cause), 0, "stat: %s",
	    cause ? cause : "");
	found = st.text != NULL && strstr(st.text, needle) != NULL;
	if (!found)
		cr_log_info("stat text: %s", st.text ? st.text : "(none)");
	store_stats_free(&st);
	return found;
}

/* A second thread reads commit 0 and the statistics all along. */
struct reader {
	struct store *s;
	atomic_int stop;
	atomic_int reads;
	atomic_int errors;
	char first_error[256];
};

static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	struct store_stats st;
	uint8_t key[6], want[VALUE_SIZE];
	void *val;
	size_t vlen;
	char *cause;
	int rc;

	make_key(key, 0, 0);
	make_value(want, 0, 0);
	while (!atomic_load(&r->stop)) {
		cause = NULL;
		rc = store_get(r->s, key, sizeof key, &val, &vlen, &cause);
		if (rc == 0 && (vlen != sizeof want ||
		    memcmp(val, want, vlen) != 0))
			rc = STORE_E_CORRUPT;
		if (rc == 0)
			free(val);
		else if (atomic_fetch_add(&r->errors, 1) == 0)
			snprintf(r->first_error, sizeof r->first_error,
			    "get: %s", cause ? cause : store_strerror(rc));
		free(cause);
		cause = NULL;
		if (store_stat(r->s, &st, &cause) == 0)
			store_stats_free(&st);
		else if (atomic_fetch_add(&r->errors, 1) == 0)
			snprintf(r->first_error, sizeof r->first_error,
			    "stat: %s", cause ? cause : "?");
		free(cause);
		atomic_fetch_add(&r->reads, 1);
	}
	return NULL;
}

/* Let the reader do n more reads. */
static void
reader_wait(struct reader *r, int n)
{
	int until = atomic_load(&r->reads) + n;

	while (atomic_load(&r->reads) < until && atomic_load(&r->errors) == 0)
		usleep(100);
}

/* Write zeros to file until the filesystem is full. */
static void
fill(const char *file)
{
	static char zeros[64 << 10];
	size_t chunk;
	int fd;

	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0, "%s: %s", file, strerror(errno));
	for (chunk = sizeof zeros; chunk >= 512; chunk /= 2) {
		while (write(fd, zeros, chunk) == (ssize_t)chunk)
			;
	}
	close(fd);
}

/*
 * What the writing child of disk_full tells the test.  The child cannot
 * use Criterion's asserts (it is not the test's process): it writes the
 * first problem here and exits 1.
 */
struct shared {
	signed char result[MAX_COMMITS];
	uint32_t ncommits;
	uint32_t first_fail;
	int reads;
	char error[512];
};

#define CHILD_CHECK(sh, cond, ...) do {					\
	if (!(cond)) {							\
		snprintf((sh)->error, sizeof (sh)->error, __VA_ARGS__);	\
		_exit(1);						\
	}								\
} while (0)

/* Commit number c in the child; result[] is the shared one. */
static int
child_commit(struct shared *sh, struct store *s, uint32_t c, char **cause)
{
	struct store_batch *b = store_batch_new();
	uint8_t key[6], val[VALUE_SIZE];
	int j, rc;

	CHILD_CHECK(sh, c < MAX_COMMITS, "more than %d commits", MAX_COMMITS);
	for (j = 0; j < KEYS_PER_COMMIT; j++) {
		make_key(key, c, j);
		make_value(val, c, j);
		store_batch_put(b, key, sizeof key, val, sizeof val);
	}
	free(*cause);
	*cause = NULL;
	rc = store_commit(s, b, cause);
	store_batch_free(b);
	sh->result[c] = rc == 0 ? 1 : -1;
	sh->ncommits = c + 1;
	return rc;
}

/* The child's statistics text holds needle. */
static int
child_stat_says(struct store *s, const char *needle)
{
	struct store_stats st;
	int found;

	if (store_stat(s, &st, NULL) != 0)
		return 0;
	found = st.text != NULL && strstr(st.text, needle) != NULL;
	store_stats_free(&st);
	return found;
}

/*
 * The child: fill the disk under the store, see commits refused while a
 * reader thread goes on, free the space, commit again, and stop dead, as
 * kill -9 would: no close, so the next open replays the log as after a
 * crash.
 */
static mapmon_dead void
disk_full_child(struct shared *sh, const char *filler)
{
	struct store_options o;
	struct reader r;
	struct store *s = NULL;
	pthread_t t;
	char *cause = NULL;
	uint32_t c = 0;
	int rc, i;

	store_options_defaults(&o);
	o.backend = "leveldb";
	o.sync = STORE_SYNC_COMMIT;
	o.leveldb.write_buffer_size = 64 << 10;
	o.leveldb.cache_size = 1 << 20;
	rc = store_open(path, &o, STORE_CREATE, &s, &cause);
	CHILD_CHECK(sh, rc == 0, "store_open: %s", cause);
	for (i = 0; i < 20; i++, c++)
		CHILD_CHECK(sh, child_commit(sh, s, c, &cause) == 0,
		    "commit %u: %s", c, cause);

	/*
	 * Start a new log (a range compaction writes the memtable out first;
	 * past every key it compacts nothing else), so that the refused
	 * records are the log's first ones: without the reopen, the records
	 * committed after them would sit out of step with the log's blocks.
	 */
	rc = store_compact(s, "\xff", 1, "\xff\xff", 2, &cause);
	CHILD_CHECK(sh, rc == 0, "compact: %s", cause);

	memset(&r, 0, sizeof r);
	r.s = s;
	CHILD_CHECK(sh, pthread_create(&t, NULL, reader_main, &r) == 0,
	    "pthread_create");

	/* The disk fills: commits go on until LevelDB's write fails. */
	fill(filler);
	while ((rc = child_commit(sh, s, c, &cause)) == 0)
		c++;
	CHILD_CHECK(sh, rc == STORE_E_NOSPC, "first refusal: %d %s", rc,
	    cause);
	sh->first_fail = c++;

	/* While it stays full: refused again, nothing crashes. */
	for (i = 0; i < 3; i++, c++) {
		rc = child_commit(sh, s, c, &cause);
		CHILD_CHECK(sh, rc == STORE_E_NOSPC, "commit %u on a full "
		    "disk: %d %s", c, rc, cause);
	}
	CHILD_CHECK(sh, child_stat_says(s, "a write failed"),
	    "stat does not say that a write failed");
	reader_wait(&r, 100);

	/* Space returns: the next commit reopens the DB and goes through. */
	CHILD_CHECK(sh, unlink(filler) == 0, "unlink: %s", strerror(errno));
	rc = child_commit(sh, s, c, &cause);
	CHILD_CHECK(sh, rc == 0, "commit %u after space returned: %s", c,
	    cause);
	c++;
	CHILD_CHECK(sh, child_stat_says(s, "reopens after a failed write: 1\n"),
	    "stat does not count one reopen");
	/* More than a log block's worth, less than a memtable's. */
	for (i = 0; i < 10; i++, c++)
		CHILD_CHECK(sh, child_commit(sh, s, c, &cause) == 0,
		    "commit %u: %s", c, cause);
	reader_wait(&r, 100);

	atomic_store(&r.stop, 1);
	pthread_join(t, NULL);
	sh->reads = atomic_load(&r.reads);
	CHILD_CHECK(sh, atomic_load(&r.errors) == 0, "the reader failed %d "
	    "times, first: %s", atomic_load(&r.errors), r.first_error);
	_exit(0);
}

Test(reopen, disk_full)
{
	struct shared *sh;
	struct store *s;
	char filler[256];
	uint32_t c, acked;
	pid_t pid;
	int status, e;

	need_leveldb();
	/* A mount namespace of this test's own: the tmpfs dies with it. */
	if (unshare(CLONE_NEWNS) == -1) {
		e = errno;
		SKIP("cannot make a mount namespace (%s): needs root",
		    strerror(e));
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount("tmpfs", mnt, "tmpfs", 0, "size=2m,mode=0700") == -1) {
		e = errno;
		SKIP("cannot mount a small tmpfs: %s", strerror(e));
	}
	mounted = 1;
	snprintf(filler, sizeof filler, "%s/filler", mnt);

	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(sh, MAP_FAILED);
	memset(sh, 0, sizeof *sh);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		disk_full_child(sh, filler);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the writer: %s (status %d)", sh->error, status);
	cr_log_info("commit %u refused first; %d reads beside", sh->first_fail,
	    sh->reads);
	cr_assert_gt(sh->reads, 0);

	/*
	 * After the "crash": every acknowledged commit is there whole, also
	 * those written after the refusals, and no refused one.
	 */
	c = sh->ncommits;
	memcpy(result, sh->result, sizeof result);
	munmap(sh, sizeof *sh);
	s = open_store(0);
	acked = check_contents(s, c);
	cr_assert_eq(acked, c - 4);
	store_close(s);
}

Test(reopen, reopen_fails)
{
	struct store *s;
	void *val;
	size_t vlen;
	char *cause = NULL;
	uint8_t key[6];
	uint32_t c = 0, acked;
	int rc, i;

	need_leveldb();
	/* Root passes every permission check: be nobody for the test. */
	if (geteuid() == 0) {
		cr_assert_eq(chown(tmpdir, NOBODY, NOBODY), 0);
		cr_assert_eq(chown(mnt, NOBODY, NOBODY), 0);
		cr_assert_eq(seteuid(NOBODY), 0, "seteuid: %s",
		    strerror(errno));
	}
	s = open_store(STORE_CREATE);
	for (i = 0; i < 5; i++, c++)
		cr_assert_eq(commit_one(s, c, &cause), 0, "%s", cause);

	/*
	 * No new file can be made in the store: once the memtable is full,
	 * LevelDB's write fails (it cannot start a new log).
	 */
	cr_assert_eq(chmod(path, 0500), 0);
	while ((rc = commit_one(s, c, &cause)) == 0) {
		c++;
		cr_assert_lt(c, MAX_COMMITS, "no write failed");
	}
	cr_assert_eq(rc, STORE_E_IO, "first refusal: %d %s", rc, cause);
	cr_log_info("commit %u refused: %s", c, cause);
	free(cause);
	cause = NULL;
	c++;
	cr_assert_eq(records_of(s, 0), KEYS_PER_COMMIT,
	    "reads fail before the reopen");

	/*
	 * The next commit closes the DB to reopen it, and the open fails too
	 * (it cannot write the replayed log out as a table).
	 */
	rc = commit_one(s, c, &cause);
	c++;
	cr_assert_eq(rc, STORE_E_IO, "commit: %d %s", rc, cause ? cause : "");
	cr_assert_not_null(strstr(cause, "reopening"), "%s", cause);
	free(cause);
	cause = NULL;

	/* Closed: reads fail, saying why, and touch no closed DB. */
	make_key(key, 0, 0);
	rc = store_get(s, key, sizeof key, &val, &vlen, &cause);
	cr_assert_eq(rc, STORE_E_IO, "get on a closed DB: %d", rc);
	cr_assert_not_null(strstr(cause, "closed"), "%s", cause);
	free(cause);
	cause = NULL;
	cr_assert_null(store_iter_new(s, NULL, 0, NULL, 0, &cause));
	cr_assert_not_null(cause);
	free(cause);
	cause = NULL;
	cr_assert_eq(store_compact(s, NULL, 0, NULL, 0, &cause), STORE_E_IO);
	free(cause);
	cause = NULL;
	cr_assert(stat_says(s, "closed: reopening after a failed write"));
	/* And a commit while it cannot open: refused again, no crash. */
	rc = commit_one(s, c, &cause);
	c++;
	cr_assert_eq(rc, STORE_E_IO, "commit: %d %s", rc, cause ? cause : "");
	free(cause);
	cause = NULL;

	/* Writable again: the next commit opens the DB and goes through. */
	cr_assert_eq(chmod(path, 0700), 0);
	rc = commit_one(s, c, &cause);
	cr_assert_eq(rc, 0, "commit after the fix: %s", cause ? cause : "");
	c++;
	cr_assert(stat_says(s, "reopens after a failed write: 1\n"));
	acked = check_contents(s, c);
	cr_assert_eq(acked, c - 3);
	store_close(s);

	s = open_store(0);
	cr_assert_eq(check_contents(s, c), acked);
	store_close(s);
}
