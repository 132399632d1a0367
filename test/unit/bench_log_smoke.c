/*
 * bench_log_smoke.c: runs bench_log_run with few iterations and checks that
 * its output parses (one header, the five cases, each a positive figure);
 * the speed itself is BENCHMARKS.md's business, not a test's.  Until
 * `mapmon-bench log` exists, `bench_log_smoke 1000000` measures for real.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench/bench_log.h"

int
main(int argc, char **argv)
{
	static const char *const want[] = {
		"disabled", "gathered", "gathered_2threads", "written",
		"written_gathered",
	};
	char *buf = NULL, *line, *save = NULL, name[64], *end;
	size_t len = 0, seen = 0;
	double ns;
	FILE *f;
	long iterations = 2000;
	int header = 0;

	if (argc > 1) {
		iterations = strtol(argv[1], &end, 10);
		if (*end != '\0' || iterations < 1 || iterations > 1000000000) {
			fprintf(stderr, "usage: bench_log_smoke [ITERATIONS]\n");
			return 64;
		}
	}

	if ((f = open_memstream(&buf, &len)) == NULL)
		return 1;
	if (bench_log_run(f, (int)iterations) != 0) {
		fprintf(stderr, "bench_log_run failed\n");
		return 1;
	}
	fclose(f);
	fputs(buf, stdout);

	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		if (!header) {
			if (strcmp(line, "case ns_per_call") != 0) {
				fprintf(stderr, "bad header: %s\n", line);
				return 1;
			}
			header = 1;
			continue;
		}
		if (seen == sizeof want / sizeof want[0] ||
		    sscanf(line, "%63s", name) != 1 ||
		    strcmp(name, want[seen]) != 0) {
			fprintf(stderr, "unexpected line: %s\n", line);
			return 1;
		}
		ns = strtod(line + strlen(name), &end);
		if (end == line + strlen(name) || *end != '\0' || !(ns > 0)) {
			fprintf(stderr, "bad figure: %s\n", line);
			return 1;
		}
		seen++;
	}
	free(buf);
	if (!header || seen != sizeof want / sizeof want[0]) {
		fprintf(stderr, "missing cases: %zu of %zu\n", seen,
		    sizeof want / sizeof want[0]);
		return 1;
	}
	return 0;
}
