/*
 * loadtool.h: what the load programs of the tests share
 * (test/crash/ackload, test/load/loadgen): a command line of the form
 * "PROGRAM SUBCOMMAND [options]", its usage error, and messages prefixed
 * with the program's name.
 */
#ifndef LOADTOOL_H
#define LOADTOOL_H

#include "common/mapmon.h"

/*
 * The program's name (for messages) and its whole usage text (printed as
 * it is by loadtool_usage()); both borrowed, to be set before any other
 * loadtool_* call.
 */
void loadtool_init(const char *progname, const char *usage);

/* Print "PROGRAM: message" and a newline on stderr. */
void loadtool_warnx(const char *fmt, ...) printflike(1, 2);

/* Print the usage text on stderr and exit 64 (MAPMON_EXIT_USAGE). */
mapmon_dead void loadtool_usage(void);

/*
 * The subcommand, argv[1]; without one, the usage error.  On return *argc
 * and *argv are shifted by one: argv[0] is the subcommand, and getopt()
 * reads the options that follow it.
 */
const char *loadtool_subcommand(int *argc, char ***argv);

#endif /* LOADTOOL_H */
