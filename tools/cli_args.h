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
 * argument taking the words that follow as long as they fit it.  As Ceph's
 * CLI matches words (validate_command()), an optional positional that a
 * word does not fit (an int, a float, a choice, an OSD id) is passed over,
 * and the word goes to the next: `osd tree down' is the states, not the
 * epoch; `pg ls 1 active' a pool and a state.  Types, bounds and choices
 * are checked here, so that a usage error never reaches the monitor; every
 * message and usage line names an argument by its metavar, its name in
 * capitals ("PG_NUM"), and an OSD ("osd"/"osds" types) is taken as "N" or
 * "osd.N", as Ceph's CephOsdName.
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
	CLI_ARG_STRINGS, /* the words that follow, an array */
	CLI_ARG_INTS,	 /* the ints that follow, an array */
	CLI_ARG_FLAG,	 /* its literal "option" given: true */
	CLI_ARG_JSON,	 /* no command-line form */
	CLI_ARG_OSD,	 /* an OSD id: "3" or "osd.3", sent as 3 */
	CLI_ARG_OSDS,	 /* the OSD ids that follow, or a choice */
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
	char *usage;		/* "pg ls [POOL] [STATES...]", made from the
				   arguments */
};

struct cli_table {
	struct cli_cmd *cmds;	/* sorted by prefix */
	size_t ncmds;
};

/*
 * Build a table from get_command_descriptions' data.  Every DESC is checked
 * (a prefix, known argument types, choices for a choice); each command's
 * usage line is made from its arguments (the DESC's "usage" is the
 * monitor's own), so that it names them as the error messages do: "pg ls
 * [POOL] [STATES...] [--pool POOLSTR]", each optional positional in its own
 * brackets, a list's choices joined by '|' and followed by "...".  Returns
 * a table the caller frees with cli_table_free(), or NULL with *cause
 * naming the bad entry.
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

/*
 * One command's whole help, for `COMMAND --help' and `help COMMAND': its
 * usage line, its help line, and a line per argument saying what it
 * takes: its type, its range, its choices ("THRESHOLD  an integer",
 * "WEIGHT  a number from 0 to 1", "STUCKOPS  any of inactive, unclean").
 */
void cli_cmd_print_help(const struct cli_cmd *, FILE *f);

/*
 * For the shell's completion (tools/mapmon.bash-completion): a line per
 * visible command, its prefix, then per argument a tab and
 * NAME:TYPE:REQUIRED:OPTION:CHOICES, REQUIRED 1 or 0, OPTION empty for a
 * positional, the choices joined by '|' ("pg dump_stuck\tstuckops:strings
 * :0::inactive|unclean...").
 */
void cli_table_print_args(const struct cli_table *, FILE *f);

/*
 * The commands closest to words[0..n) that match none, as Ceph's CLI
 * lists them ("no valid command found; 10 closest matches"): those
 * sharing the most leading words, then those whose first word that
 * differs is nearest (common/suggest.h), in table order among equals,
 * hidden ones left out.  Up to max go to out; returns how many.
 */
size_t cli_table_closest(const struct cli_table *, char *const *words, size_t n,
    const struct cli_cmd **out, size_t max);

#endif /* CLI_ARGS_H */
