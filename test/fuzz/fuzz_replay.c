/*
 * fuzz_replay.c: runs a fuzz target's seed corpus through the target
 * without libFuzzer, so that `make check` (and its ASan+UBSan pass) checks
 * every seed and every committed reproducer with any compiler.
 *
 *	test/fuzz/fuzz_replay_NAME [FILE | DIR]...
 *
 * With no argument it replays $top_srcdir/test/fuzz/NAME (NAME is compiled
 * in as FUZZ_CORPUS).  Each input goes once through the target's
 * LLVMFuzzerTestOneInput(), which aborts on a finding; exit 0 and a count
 * when every input went through.
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/mapmon.h"

#ifndef FUZZ_CORPUS
#error FUZZ_CORPUS names the corpus under test/fuzz/
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replayed;

static int
fuzz_replay_file(const char *path)
{
	FILE *f;
	uint8_t *buf = NULL, *copy;
	size_t len = 0, cap = 0, n;

	if ((f = fopen(path, "rb")) == NULL) {
		perror(path);
		return -1;
	}
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = xrealloc(buf, cap);
		}
		if ((n = fread(buf + len, 1, cap - len, f)) == 0)
			break;
		len += n;
	}
	if (ferror(f)) {
		perror(path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* A copy of exactly len bytes: ASan sees any read past the input. */
	copy = xmalloc(len ? len : 1);
	if (len > 0)
		memcpy(copy, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	replayed++;
	return 0;
}

static int
fuzz_replay_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
fuzz_replay_path(const char *path)
{
	struct stat sb;
	struct dirent *de;
	DIR *d;
	char **names = NULL, *p;
	size_t n = 0, i;
	int rc = 0;

	if (stat(path, &sb) == -1) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(sb.st_mode))
		return fuzz_replay_file(path);
	if ((d = opendir(path)) == NULL) {
		perror(path);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		names = xreallocarray(names, n + 1, sizeof *names);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, fuzz_replay_cmp);
	for (i = 0; i < n; i++) {
		xasprintf(&p, "%s/%s", path, names[i]);
		printf("%s\n", p);
		fflush(stdout);
		if (fuzz_replay_file(p) == -1)
			rc = -1;
		free(p);
		free(names[i]);
	}
	free(names);
	if (n == 0) {
		fprintf(stderr, "%s: no inputs\n", path);
		rc = -1;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	const char *top;
	char *dir;
	int i, rc = 0;

	if (argc > 1) {
		for (i = 1; i < argc; i++)
			if (fuzz_replay_path(argv[i]) == -1)
				rc = 1;
	} else {
		if ((top = getenv("top_srcdir")) == NULL)
			top = ".";
		xasprintf(&dir, "%s/test/fuzz/%s", top, FUZZ_CORPUS);
		if (fuzz_replay_path(dir) == -1)
			rc = 1;
		free(dir);
	}
	printf("%zu inputs replayed through fuzz_%s\n", replayed, FUZZ_CORPUS);
	return rc;
}
