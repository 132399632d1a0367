/* loadtool.c: the command line of the tests' load programs (loadtool.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/mapmon.h"
#include "test/lib/loadtool.h"

static const char *loadtool_name = "loadtool";
static const char *loadtool_text = "";

void
loadtool_init(const char *progname, const char *usage)
{
	loadtool_name = progname;
	loadtool_text = usage;
}

void
loadtool_warnx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", loadtool_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
loadtool_usage(void)
{
	fputs(loadtool_text, stderr);
	exit(MAPMON_EXIT_USAGE);
}

const char *
loadtool_subcommand(int *argc, char ***argv)
{
	if (*argc < 2)
		loadtool_usage();
	(*argc)--;
	(*argv)++;
	return (*argv)[0];
}
