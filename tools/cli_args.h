/*
 * cli_args.h: the command table of the CLI, read from the monitor's
 * get_command_descriptions reply, and the parsing of command-line words
 * into a command object with it (the contract is the daemon's table:
 * see mapmon(8) and mapmon-protocol(7)).
 *
 * A table is built once per run from the reply's data, {"commands":
 * [DESC, ...]}; nothing is cached on disk.  Words are matched against the
 * prefixes (the longest wins), the rest are mapped to the arguments:
 * arguments with an "option" ("--pool P", a flag's literal) anywhere after
 * the prefix, the others positional in order, a "strings"/"ints"/"osds"
 * argument taking the rest of the words.  As Ceph's CLI matches words
 * (validate_command()), an optional positional that a word is not of the
 * type of (an int, a float, a choice, an OSD id) is passed over, and the
 * word goes to the next: `osd tree down' is the states, not the epoch.
 * Types and bounds are checked here, so that a usage error never reaches
 * the monitor.
 *
 * Errors follow common/mapmon.h: NULL or -1 and a one-line *cause the
 * caller frees.
 */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

enum cli_arg_type {
	CLI_ARG_STRING,
	CLI_ARG_INT,
	CLI_ARG_FLOAT,
	CLI_ARG_CHOICE,
	CLI_ARG_STRINGS, /* the rest of the words, an array */
	CLI_ARG_INTS,	 /* the rest of the words, an array of ints */
	CLI_ARG_FLAG,	 /* its literal "option" given: true */
	CLI_ARG_JSON,	 /* no command-line form */
	CLI_ARG_OSD,	 /* an OSD id: "3" or "osd.3", sent as 3 */
	CLI_ARG_OSDS,	 /* the rest, OSD ids or a choice first */
	CLI_ARG_VALUE,	 /* a string or a number, sent as a string */
};

struct cli_arg {
	char *name;
	enum cli_arg_type type;
	int required;
	int has_min, has_max;
	double min, max;	/* bounds of ints and floats */
	/*
	 * CLI_ARG_CHOICE's words; CLI_ARG_STRINGS' words, when given;
	 * CLI_ARG_OSDS' words for every OSD ("any", "all"), first only.
	 */
	char **choices;
	size_t nchoices;
	char *option;		/* "--pool", or NULL for a positional */
};

#define CLI_CMD_READ 0x1
#define CLI_CMD_WRITE 0x2
#define CLI_CMD_ADMIN 0x4
#define CLI_CMD_HIDDEN 0x8

struct cli_cmd {
	char *prefix;		/* "osd pool create" */
	char **words;		/* the prefix split on blanks */
	size_t nwords;
	struct cli_arg *args;
	size_t nargs;
	int flags;		/* CLI_CMD_* */
	char *help;		/* "" when the table has none */
	char *usage;		/* "osd pool create NAME PG_NUM [SIZE ...]" */
};

struct cli_table {
	struct cli_cmd *cmds;	/* sorted by prefix */
	size_t ncmds;
};

/*
 * Build a table from get_command_descriptions' data.  Every DESC is checked
 * (a prefix, known argument types, choices for a choice); a DESC without a
 * usage line gets one made from its arguments.  Returns a table the caller
 * frees with cli_table_free(), or NULL with *cause naming the bad entry.
 */
struct cli_table *cli_table_from_json(const json_t *data, char **cause);
void cli_table_free(struct cli_table *);

/* The command whose prefix is exactly prefix, or NULL. */
const struct cli_cmd *cli_table_find(const struct cli_table *,
    const char *prefix);

/*
 * The command with the longest prefix that words[0..n) start with, or NULL
 * when none does.  *used (may be NULL) gets the number of words of its
 * prefix.
 */
const struct cli_cmd *cli_table_match(const struct cli_table *,
    char *const *words, size_t n, size_t *used);

/*
 * Whether some prefix starts with words[0..n) and is longer (an incomplete
 * command such as "osd pool").  Returns the number of such commands,
 * hidden ones not counted.
 */
size_t cli_table_continuations(const struct cli_table *, char *const *words,
    size_t n);

/*
 * Map words[0..n) (the words after the prefix) to cmd's arguments and build
 * the command object {"prefix": ..., ARG: VALUE, ...}.  Returns a new
 * reference, or NULL with *cause saying what was wrong in one line
 * ("pg_num: 'x' is not an integer", "missing argument POOL", "unexpected
 * argument 'z'").
 */
json_t *cli_args_build(const struct cli_cmd *cmd, char *const *words,
    size_t n, char **cause);

/*
 * Print the help of every command whose prefix starts with the words
 * words[0..n) (all when n is 0), hidden ones left out, one "  USAGE"
 * line and one indented help line each.  Returns how many were printed.
 */
size_t cli_table_print_help(const struct cli_table *, FILE *f,
    char *const *words, size_t n);

#endif /* CLI_ARGS_H */
