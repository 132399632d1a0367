/*
 * fuzz_conf.c: libFuzzer target for the config loader (conf/conf.h).
 *
 * The input is a whole mapmon.conf.  conf_load() has no buffer form: the
 * input is written to one temporary file (made at the first call, removed
 * at exit) and loaded from there, as the daemon loads its file.  Then:
 *
 *  - a refused file has at least one error, each starting with the path
 *    (the "FILE:LINE: message" form), and at most CONF_ERRORS_MAX + 1;
 *  - an accepted file's every key round-trips: conf_format() of its value,
 *    conf_set() into a fresh configuration, is conf_equal() to it;
 *
 * or the target aborts (a finding).
 *
 *	test/fuzz/fuzz_conf -max_len=8192 NEWDIR test/fuzz/conf
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mapmon.h"
#include "conf/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_conf_path[64];
static int fuzz_conf_fd = -1;

static void
fuzz_conf_cleanup(void)
{
	if (fuzz_conf_fd != -1)
		unlink(fuzz_conf_path);
}

/* Replace the file's contents with p[0..len). */
static void
fuzz_conf_write(const uint8_t *p, size_t len)
{
	ssize_t n;

	if (fuzz_conf_fd == -1) {
		snprintf(fuzz_conf_path, sizeof fuzz_conf_path,
		    "/tmp/fuzz_conf.XXXXXX");
		if ((fuzz_conf_fd = mkstemp(fuzz_conf_path)) == -1)
			abort();
		atexit(fuzz_conf_cleanup);
	}
	if (ftruncate(fuzz_conf_fd, 0) == -1)
		abort();
	if (len > 0 && ((n = pwrite(fuzz_conf_fd, p, len, 0)) < 0 ||
	    (size_t)n != len))
		abort();
}

static void
fuzz_conf_roundtrip(const struct conf *c)
{
	struct conf *c2;
	char *text, *cause = NULL;
	int key;

	c2 = conf_new();
	for (key = 0; key < CONF_NKEYS; key++) {
		(void)conf_int(c, key);
		(void)conf_str(c, key);
		text = conf_format(c, key);
		if (conf_set(c2, key, text, &cause) != 0) {
			fprintf(stderr, "fuzz_conf: key %d: '%s' refused: %s\n",
			    key, text, cause);
			abort();
		}
		if (!conf_equal(c, c2, key)) {
			fprintf(stderr, "fuzz_conf: key %d: '%s' differs\n",
			    key, text);
			abort();
		}
		free(text);
	}
	conf_free(c2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf *c;
	char **errors;
	size_t nerrors, i, plen;

	fuzz_conf_write(data, size);
	c = conf_load(fuzz_conf_path, &errors, &nerrors);
	if (c == NULL) {
		if (nerrors == 0 || nerrors > CONF_ERRORS_MAX + 1)
			abort();
		plen = strlen(fuzz_conf_path);
		for (i = 0; i < nerrors; i++) {
			if (strncmp(errors[i], fuzz_conf_path, plen) != 0 ||
			    errors[i][plen] != ':')
				abort();
		}
		conf_errors_free(errors, nerrors);
		return 0;
	}
	if (nerrors != 0 || errors != NULL)
		abort();
	fuzz_conf_roundtrip(c);
	conf_free(c);
	return 0;
}
