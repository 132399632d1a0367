/*
 * cli_args.c: the CLI's command table and word parsing (see cli_args.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "common/suggest.h"
#include "tools/cli_args.h"

static const struct {
	const char *name;
	enum cli_arg_type type;
} cli_arg_types[] = {
	{ "string", CLI_ARG_STRING },
	{ "int", CLI_ARG_INT },
	{ "float", CLI_ARG_FLOAT },
	{ "choice", CLI_ARG_CHOICE },
	{ "strings", CLI_ARG_STRINGS },
	{ "ints", CLI_ARG_INTS },
	{ "flag", CLI_ARG_FLAG },
	{ "json", CLI_ARG_JSON },
	{ "osd", CLI_ARG_OSD },
	{ "osds", CLI_ARG_OSDS },
	{ "value", CLI_ARG_VALUE },
};

static void
cli_arg_clear(struct cli_arg *a)
{
	size_t i;

	free(a->name);
	for (i = 0; i < a->nchoices; i++)
		free(a->choices[i]);
	free(a->choices);
	free(a->option);
}

static void
cli_cmd_clear(struct cli_cmd *c)
{
	size_t i;

	free(c->prefix);
	for (i = 0; i < c->nwords; i++)
		free(c->words[i]);
	free(c->words);
	for (i = 0; i < c->nargs; i++)
		cli_arg_clear(&c->args[i]);
	free(c->args);
	free(c->help);
	free(c->usage);
}

void
cli_table_free(struct cli_table *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->ncmds; i++)
		cli_cmd_clear(&t->cmds[i]);
	free(t->cmds);
	free(t);
}

/* The name of an argument as the usage line writes it: "PG_NUM". */
static char *
cli_arg_metavar(const struct cli_arg *a)
{
	char *s, *p;

	s = xstrdup(a->name);
	for (p = s; *p != '\0'; p++)
		*p = (char)toupper((unsigned char)*p);
	return s;
}

/* Whether a's value is a list of words. */
static int
cli_arg_is_list(const struct cli_arg *a)
{
	return a->type == CLI_ARG_STRINGS || a->type == CLI_ARG_INTS ||
	    a->type == CLI_ARG_OSDS;
}

/* Is w one of a's choices? */
static int
cli_arg_is_choice(const struct cli_arg *a, const char *w)
{
	size_t i;

	for (i = 0; i < a->nchoices; i++)
		if (strcmp(w, a->choices[i]) == 0)
			return 1;
	return 0;
}

/* One argument's part of a usage line, without brackets. */
static char *
cli_arg_usage(const struct cli_arg *a)
{
	char *mv, *s, *choices = NULL, *tmp;
	size_t i;

	if (a->type == CLI_ARG_FLAG)
		return xstrdup(a->option);
	if (a->nchoices > 0) {
		choices = xstrdup(a->choices[0]);
		for (i = 1; i < a->nchoices; i++) {
			xasprintf(&tmp, "%s|%s", choices, a->choices[i]);
			free(choices);
			choices = tmp;
		}
	}
	mv = cli_arg_metavar(a);
	if (a->type == CLI_ARG_OSDS && choices != NULL)
		/* "IDS...|any|all": the ids, or a word for every OSD. */
		xasprintf(&s, "%s...|%s", mv, choices);
	else if (cli_arg_is_list(a))
		xasprintf(&s, "%s...", choices != NULL ? choices : mv);
	else if (a->type == CLI_ARG_JSON)
		xasprintf(&s, "<%s:json>", mv);
	else
		s = xstrdup(choices != NULL ? choices : mv);
	if (a->option != NULL) {
		xasprintf(&tmp, "%s %s", a->option, s);
		free(s);
		s = tmp;
	}
	free(choices);
	free(mv);
	return s;
}

/*
 * The usage line, made from the arguments: the positionals in order, each
 * optional one in brackets of its own ("[POOL] [STATES...]": any may be
 * left out, as a word that does not fit one goes to the next), then the
 * options.
 */
static char *
cli_cmd_make_usage(const struct cli_cmd *c)
{
	char *s, *tmp, *u;
	size_t i;

	s = xstrdup(c->prefix);
	for (i = 0; i < c->nargs; i++) {
		if (c->args[i].option != NULL ||
		    (c->args[i].type == CLI_ARG_JSON && !c->args[i].required))
			continue;
		u = cli_arg_usage(&c->args[i]);
		xasprintf(&tmp, c->args[i].required ? "%s %s" : "%s [%s]", s,
		    u);
		free(u);
		free(s);
		s = tmp;
	}
	for (i = 0; i < c->nargs; i++) {
		if (c->args[i].option == NULL)
			continue;
		u = cli_arg_usage(&c->args[i]);
		xasprintf(&tmp, c->args[i].required ? "%s %s" : "%s [%s]", s,
		    u);
		free(u);
		free(s);
		s = tmp;
	}
	return s;
}

static int
cli_arg_from_json(const json_t *j, struct cli_arg *a, char **cause)
{
	json_error_t err;
	const char *name, *type, *option = NULL;
	json_t *min = NULL, *max = NULL, *choices = NULL, *v;
	int required = 0;
	size_t i;

	memset(a, 0, sizeof *a);
	if (json_unpack_ex((json_t *)j, &err, 0,
		"{s:s, s:s, s?:b, s?:o, s?:o, s?:o, s?:s}", "name", &name,
		"type", &type, "required", &required, "min", &min, "max", &max,
		"choices", &choices, "option", &option) == -1) {
		xasprintf(cause, "%s", err.text);
		return -1;
	}
	for (i = 0; i < nitems(cli_arg_types); i++)
		if (strcmp(type, cli_arg_types[i].name) == 0)
			break;
	if (i == nitems(cli_arg_types)) {
		xasprintf(cause, "argument %s: unknown type '%s'", name, type);
		return -1;
	}
	a->type = cli_arg_types[i].type;
	a->name = xstrdup(name);
	a->required = required;
	if (option != NULL)
		a->option = xstrdup(option);
	if (a->type == CLI_ARG_FLAG && a->option == NULL) {
		xasprintf(cause, "argument %s: a flag without its option",
		    name);
		return -1;
	}
	if (min != NULL) {
		if (!json_is_number(min)) {
			xasprintf(cause, "argument %s: min is not a number",
			    name);
			return -1;
		}
		a->has_min = 1;
		a->min = json_number_value(min);
	}
	if (max != NULL) {
		if (!json_is_number(max)) {
			xasprintf(cause, "argument %s: max is not a number",
			    name);
			return -1;
		}
		a->has_max = 1;
		a->max = json_number_value(max);
	}
	if (choices != NULL) {
		if (!json_is_array(choices)) {
			xasprintf(cause, "argument %s: choices is not an array",
			    name);
			return -1;
		}
		a->choices = xcalloc(json_array_size(choices) + 1,
		    sizeof *a->choices);
		json_array_foreach(choices, i, v) {
			if (!json_is_string(v)) {
				xasprintf(cause, "argument %s: a choice is not "
				    "a string", name);
				return -1;
			}
			a->choices[a->nchoices++] =
			    xstrdup(json_string_value(v));
		}
	}
	if (a->type == CLI_ARG_CHOICE && a->nchoices == 0) {
		xasprintf(cause, "argument %s: a choice without choices", name);
		return -1;
	}
	return 0;
}

static int
cli_cmd_from_json(const json_t *j, struct cli_cmd *c, char **cause)
{
	json_error_t err;
	const char *prefix, *help = "";
	json_t *args = NULL, *flags = NULL, *v;
	char *why = NULL, *copy, *w, *save = NULL;
	size_t i;

	memset(c, 0, sizeof *c);
	if (json_unpack_ex((json_t *)j, &err, 0, "{s:s, s?:o, s?:o, s?:s}",
		"prefix", &prefix, "args", &args, "flags", &flags, "help",
		&help) == -1) {
		xasprintf(cause, "%s", err.text);
		return -1;
	}
	c->prefix = xstrdup(prefix);
	copy = xstrdup(prefix);
	for (w = strtok_r(copy, " \t", &save); w != NULL;
	    w = strtok_r(NULL, " \t", &save)) {
		c->words = xreallocarray(c->words, c->nwords + 1,
		    sizeof *c->words);
		c->words[c->nwords++] = xstrdup(w);
	}
	free(copy);
	if (c->nwords == 0) {
		xasprintf(cause, "an empty prefix");
		return -1;
	}
	if (args != NULL && !json_is_array(args)) {
		xasprintf(cause, "%s: args is not an array", prefix);
		return -1;
	}
	if (args != NULL) {
		c->args = xcalloc(json_array_size(args) + 1, sizeof *c->args);
		json_array_foreach(args, i, v) {
			if (cli_arg_from_json(v, &c->args[c->nargs], &why) ==
			    -1) {
				c->nargs++;
				xasprintf(cause, "%s: %s", prefix, why);
				free(why);
				return -1;
			}
			c->nargs++;
		}
	}
	if (flags != NULL) {
		if (!json_is_array(flags)) {
			xasprintf(cause, "%s: flags is not an array", prefix);
			return -1;
		}
		json_array_foreach(flags, i, v) {
			if (!json_is_string(v))
				continue;
			if (strcmp(json_string_value(v), "read") == 0)
				c->flags |= CLI_CMD_READ;
			else if (strcmp(json_string_value(v), "write") == 0)
				c->flags |= CLI_CMD_WRITE;
			else if (strcmp(json_string_value(v), "admin") == 0)
				c->flags |= CLI_CMD_ADMIN;
			else if (strcmp(json_string_value(v), "hidden") == 0)
				c->flags |= CLI_CMD_HIDDEN;
		}
	}
	c->help = xstrdup(help);
	c->usage = cli_cmd_make_usage(c);
	return 0;
}

static int
cli_cmd_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cli_cmd *)a)->prefix,
	    ((const struct cli_cmd *)b)->prefix);
}

struct cli_table *
cli_table_from_json(const json_t *data, char **cause)
{
	struct cli_table *t;
	json_t *cmds, *v;
	char *why = NULL;
	size_t i;

	cmds = json_is_object(data) ? json_object_get(data, "commands") : NULL;
	if (!json_is_array(cmds)) {
		xasprintf(cause, "the command descriptions hold no "
		    "\"commands\" array");
		return NULL;
	}
	t = xcalloc(1, sizeof *t);
	t->cmds = xcalloc(json_array_size(cmds) + 1, sizeof *t->cmds);
	json_array_foreach(cmds, i, v) {
		if (cli_cmd_from_json(v, &t->cmds[t->ncmds++], &why) == -1) {
			xasprintf(cause, "command description %zu: %s", i, why);
			free(why);
			cli_table_free(t);
			return NULL;
		}
	}
	qsort(t->cmds, t->ncmds, sizeof *t->cmds, cli_cmd_cmp);
	return t;
}

const struct cli_cmd *
cli_table_find(const struct cli_table *t, const char *prefix)
{
	size_t i;

	for (i = 0; i < t->ncmds; i++)
		if (strcmp(t->cmds[i].prefix, prefix) == 0)
			return &t->cmds[i];
	return NULL;
}

/* Do words[0..n) start with c's prefix? */
static int
cli_cmd_matches(const struct cli_cmd *c, char *const *words, size_t n)
{
	size_t i;

	if (c->nwords > n)
		return 0;
	for (i = 0; i < c->nwords; i++)
		if (strcmp(c->words[i], words[i]) != 0)
			return 0;
	return 1;
}

const struct cli_cmd *
cli_table_match(const struct cli_table *t, char *const *words, size_t n,
    size_t *used)
{
	const struct cli_cmd *best = NULL;
	size_t i;

	for (i = 0; i < t->ncmds; i++) {
		if (!cli_cmd_matches(&t->cmds[i], words, n))
			continue;
		if (best == NULL || t->cmds[i].nwords > best->nwords)
			best = &t->cmds[i];
	}
	if (used != NULL)
		*used = best != NULL ? best->nwords : 0;
	return best;
}

/* Does c's prefix start with words[0..n)? */
static int
cli_cmd_starts_with(const struct cli_cmd *c, char *const *words, size_t n)
{
	size_t i;

	if (n > c->nwords)
		return 0;
	for (i = 0; i < n; i++)
		if (strcmp(c->words[i], words[i]) != 0)
			return 0;
	return 1;
}

size_t
cli_table_continuations(const struct cli_table *t, char *const *words,
    size_t n)
{
	size_t i, count = 0;

	for (i = 0; i < t->ncmds; i++)
		if (!(t->cmds[i].flags & CLI_CMD_HIDDEN) &&
		    t->cmds[i].nwords > n &&
		    cli_cmd_starts_with(&t->cmds[i], words, n))
			count++;
	return count;
}

size_t
cli_table_print_help(const struct cli_table *t, FILE *f, char *const *words,
    size_t n)
{
	const struct cli_cmd *c;
	size_t i, count = 0;

	for (i = 0; i < t->ncmds; i++) {
		c = &t->cmds[i];
		if ((c->flags & CLI_CMD_HIDDEN) ||
		    !cli_cmd_starts_with(c, words, n))
			continue;
		fprintf(f, "  %s\n", c->usage);
		if (*c->help != '\0')
			fprintf(f, "\t%s\n", c->help);
		count++;
	}
	return count;
}

/* a's choices as "a, b or c" (malloc'd). */
static char *
cli_arg_choice_list(const struct cli_arg *a, const char *last)
{
	char *list, *tmp;
	size_t i;

	list = xstrdup(a->nchoices > 0 ? a->choices[0] : "");
	for (i = 1; i < a->nchoices; i++) {
		xasprintf(&tmp, "%s%s%s", list,
		    i + 1 == a->nchoices ? last : ", ", a->choices[i]);
		free(list);
		list = tmp;
	}
	return list;
}

/*
 * A number out of a's bounds (lo and hi written as its type writes them):
 * the message, naming a by its metavar.
 */
static void
cli_arg_range_error(const struct cli_arg *a, const char *mv, const char *w,
    const char *lo, const char *hi, char **cause)
{
	if (a->has_min && a->has_max)
		xasprintf(cause, "%s: %s is out of range %s..%s", mv, w, lo,
		    hi);
	else if (a->has_min)
		xasprintf(cause, "%s: %s is below %s", mv, w, lo);
	else
		xasprintf(cause, "%s: %s is above %s", mv, w, hi);
}

/*
 * Parse one word as arg's type (an item's, for a list) and check its
 * bounds and choices; messages name the argument by its metavar.
 */
static json_t *
cli_arg_value(const struct cli_arg *a, enum cli_arg_type type,
    const char *w, char **cause)
{
	char *mv, *end, *list, lo[32], hi[32];
	const char *num;
	long long ll;
	json_t *v = NULL;
	double d;
	int osd;

	mv = cli_arg_metavar(a);
	snprintf(lo, sizeof lo, type == CLI_ARG_FLOAT ? "%g" : "%.0f", a->min);
	snprintf(hi, sizeof hi, type == CLI_ARG_FLOAT ? "%g" : "%.0f", a->max);
	switch (type) {
	case CLI_ARG_INT:
	case CLI_ARG_INTS:
	case CLI_ARG_OSD:
	case CLI_ARG_OSDS:
		/* An OSD is N or osd.N, as Ceph's CephOsdName takes it. */
		osd = type == CLI_ARG_OSD || type == CLI_ARG_OSDS;
		num = osd && strncmp(w, "osd.", 4) == 0 ? w + 4 : w;
		errno = 0;
		ll = strtoll(num, &end, 10);
		if (*num == '\0' || *end != '\0' || errno == ERANGE) {
			xasprintf(cause,
			    osd ? "%s: '%s' is not an OSD id (N or osd.N)" :
				  "%s: '%s' is not an integer",
			    mv, w);
			break;
		}
		if ((a->has_min && (double)ll < a->min) ||
		    (a->has_max && (double)ll > a->max)) {
			cli_arg_range_error(a, mv, w, lo, hi, cause);
			break;
		}
		v = json_integer((json_int_t)ll);
		break;
	case CLI_ARG_FLOAT:
		errno = 0;
		d = strtod(w, &end);
		if (*w == '\0' || *end != '\0' || errno == ERANGE ||
		    !isfinite(d)) {
			xasprintf(cause, "%s: '%s' is not a number", mv, w);
			break;
		}
		if ((a->has_min && d < a->min) || (a->has_max && d > a->max)) {
			cli_arg_range_error(a, mv, w, lo, hi, cause);
			break;
		}
		v = json_real(d);
		break;
	default:
		if (a->nchoices > 0 &&
		    (type == CLI_ARG_CHOICE || type == CLI_ARG_STRINGS)) {
			if (!cli_arg_is_choice(a, w)) {
				list = cli_arg_choice_list(a, " or ");
				xasprintf(cause, "%s: '%s' is not one of %s",
				    mv, w, list);
				free(list);
				break;
			}
		}
		if ((a->has_min && (double)strlen(w) < a->min) ||
		    (a->has_max && (double)strlen(w) > a->max)) {
			/* Strings bounded by length, should a table say so. */
			xasprintf(cause, "%s: '%s' has a length out of range",
			    mv, w);
			break;
		}
		v = json_string(w);
		break;
	}
	free(mv);
	return v;
}

/* The argument whose option is w ("--pool" or "--pool=P"), or NULL. */
static const struct cli_arg *
cli_cmd_option(const struct cli_cmd *c, const char *w, const char **inline_v)
{
	size_t i, len;

	*inline_v = NULL;
	for (i = 0; i < c->nargs; i++) {
		if (c->args[i].option == NULL)
			continue;
		len = strlen(c->args[i].option);
		if (strncmp(w, c->args[i].option, len) != 0)
			continue;
		if (w[len] == '\0')
			return &c->args[i];
		if (w[len] == '=' && c->args[i].type != CLI_ARG_FLAG) {
			*inline_v = w + len + 1;
			return &c->args[i];
		}
	}
	return NULL;
}

/* Set obj[name] = v, refusing a second value for a single argument. */
static int
cli_args_set(json_t *obj, const struct cli_arg *a, json_t *v, char **cause)
{
	char *mv;

	if (json_object_get(obj, a->name) != NULL) {
		json_decref(v);
		mv = cli_arg_metavar(a);
		xasprintf(cause, "%s given twice",
		    a->option != NULL ? a->option : mv);
		free(mv);
		return -1;
	}
	json_object_set_new(obj, a->name, v);
	return 0;
}

/*
 * The positionals: words pos[*p..npos) to c's positional arguments, in
 * order.  A list takes words while they fit it; an optional argument that
 * the next word does not fit is passed over, its complaint kept in *skip
 * (the last one, as Ceph reports it) with the word's place in *skip_at,
 * for when that word fits nothing after it either.
 */
static int
cli_args_positionals(const struct cli_cmd *c, json_t *obj, char *const *pos,
    size_t npos, size_t *p, char **skip, size_t *skip_at, char **cause)
{
	const struct cli_arg *a;
	json_t *v, *list;
	char *mv, *why;
	size_t i;

	for (i = 0; i < c->nargs; i++) {
		a = &c->args[i];
		if (a->option != NULL)
			continue;
		if (a->type == CLI_ARG_JSON) {
			if (a->required) {
				xasprintf(cause,
				    "%s has no command-line form "
				    "(use mapmon raw)",
				    a->name);
				return -1;
			}
			continue;
		}
		if (*p == npos) {
			if (a->required) {
				mv = cli_arg_metavar(a);
				xasprintf(cause, "missing argument %s", mv);
				free(mv);
				return -1;
			}
			continue;
		}
		if (cli_arg_is_list(a)) {
			list = json_array();
			for (; *p < npos; (*p)++) {
				why = NULL;
				/* Ceph's any and all: every OSD, first only. */
				if (a->type == CLI_ARG_OSDS &&
				    json_array_size(list) == 0 &&
				    cli_arg_is_choice(a, pos[*p]))
					v = json_string(pos[*p]);
				else if ((v = cli_arg_value(a, a->type, pos[*p],
					      &why)) == NULL) {
					/* The list ends at a word it refuses. */
					if (json_array_size(list) == 0 &&
					    a->required) {
						json_decref(list);
						*cause = why;
						return -1;
					}
					free(*skip);
					*skip = why;
					*skip_at = *p;
					break;
				}
				json_array_append_new(list, v);
			}
			if (json_array_size(list) > 0)
				json_object_set_new(obj, a->name, list);
			else
				json_decref(list);
			continue;
		}
		why = NULL;
		if ((v = cli_arg_value(a, a->type, pos[*p], &why)) == NULL) {
			if (a->required) {
				*cause = why;
				return -1;
			}
			free(*skip);
			*skip = why;
			*skip_at = *p;
			continue;
		}
		(*p)++;
		json_object_set_new(obj, a->name, v);
	}
	return 0;
}

json_t *
cli_args_build(const struct cli_cmd *c, char *const *words, size_t n,
    char **cause)
{
	const struct cli_arg *a;
	const char *w, *iv;
	char **pos, *skip = NULL;
	json_t *obj, *v, *list;
	size_t i, npos = 0, p = 0, skip_at = 0;
	int end_of_options = 0;

	obj = json_pack("{s:s}", "prefix", c->prefix);
	pos = xcalloc(n + 1, sizeof *pos);

	/* Options first, from anywhere after the prefix. */
	for (i = 0; i < n; i++) {
		w = words[i];
		if (!end_of_options && strcmp(w, "--") == 0) {
			end_of_options = 1;
			continue;
		}
		if (end_of_options || strncmp(w, "--", 2) != 0) {
			pos[npos++] = words[i];
			continue;
		}
		if ((a = cli_cmd_option(c, w, &iv)) == NULL) {
			xasprintf(cause, "unknown option '%s'", w);
			goto fail;
		}
		if (a->type == CLI_ARG_FLAG)
			v = json_true();
		else {
			if (iv == NULL) {
				if (i + 1 == n) {
					xasprintf(cause, "%s needs a value",
					    a->option);
					goto fail;
				}
				iv = words[++i];
			}
			if (a->type == CLI_ARG_JSON) {
				xasprintf(cause, "%s has no command-line form "
				    "(use mapmon raw)", a->name);
				goto fail;
			}
			if ((v = cli_arg_value(a, a->type, iv, cause)) == NULL)
				goto fail;
			if (cli_arg_is_list(a)) {
				if ((list = json_object_get(obj, a->name)) ==
				    NULL) {
					list = json_array();
					json_object_set_new(obj, a->name, list);
				}
				json_array_append_new(list, v);
				continue;
			}
		}
		if (cli_args_set(obj, a, v, cause) == -1)
			goto fail;
	}

	/* Then the positionals, in order. */
	if (cli_args_positionals(c, obj, pos, npos, &p, &skip, &skip_at,
		cause) == -1)
		goto fail;
	if (p < npos) {
		/* What a word that fits nothing was refused for, if known. */
		if (skip != NULL && skip_at == p) {
			*cause = skip;
			skip = NULL;
		} else
			xasprintf(cause, "unexpected argument '%s'", pos[p]);
		goto fail;
	}

	/* Required options. */
	for (i = 0; i < c->nargs; i++) {
		a = &c->args[i];
		if (a->option != NULL && a->required &&
		    json_object_get(obj, a->name) == NULL) {
			xasprintf(cause, "missing %s", a->option);
			goto fail;
		}
	}
	free(skip);
	free(pos);
	return obj;
fail:
	free(skip);
	free(pos);
	json_decref(obj);
	return NULL;
}

/* What an argument takes, for a command's help: "an integer, 0 to 9". */
static char *
cli_arg_takes(const struct cli_arg *a)
{
	char *s, *tmp, *list, lo[32], hi[32];
	const char *what;
	int list_of = cli_arg_is_list(a);

	if (a->type == CLI_ARG_FLAG)
		return xstrdup("a flag: given or not");
	if (a->type == CLI_ARG_JSON)
		return xstrdup("JSON, no command-line form (mapmon raw)");
	if (a->nchoices > 0 && a->type != CLI_ARG_OSDS) {
		list = cli_arg_choice_list(a, ", ");
		xasprintf(&s, "%s %s", list_of ? "any of" : "one of", list);
		free(list);
		return s;
	}
	switch (a->type) {
	case CLI_ARG_OSD:
	case CLI_ARG_OSDS:
		what = list_of ? "OSD ids (N or osd.N)" :
				 "an OSD id (N or osd.N)";
		snprintf(lo, sizeof lo, "%.0f", a->min);
		snprintf(hi, sizeof hi, "%.0f", a->max);
		break;
	case CLI_ARG_INT:
	case CLI_ARG_INTS:
		what = list_of ? "integers" : "an integer";
		snprintf(lo, sizeof lo, "%.0f", a->min);
		snprintf(hi, sizeof hi, "%.0f", a->max);
		break;
	case CLI_ARG_FLOAT:
		what = "a number";
		snprintf(lo, sizeof lo, "%g", a->min);
		snprintf(hi, sizeof hi, "%g", a->max);
		break;
	case CLI_ARG_VALUE:
		return xstrdup("a word or a number");
	default:
		return xstrdup(list_of ? "words" : "a word");
	}
	if (a->has_min && a->has_max)
		xasprintf(&s, "%s, %s to %s", what, lo, hi);
	else if (a->has_min)
		xasprintf(&s, "%s, %s or more", what, lo);
	else if (a->has_max)
		xasprintf(&s, "%s, %s or less", what, hi);
	else
		s = xstrdup(what);
	if (a->nchoices > 0) {
		/* CLI_ARG_OSDS: a word for every OSD in place of the ids. */
		list = cli_arg_choice_list(a, " or ");
		xasprintf(&tmp, "%s; or %s for every OSD", s, list);
		free(list);
		free(s);
		s = tmp;
	}
	return s;
}

void
cli_cmd_print_help(const struct cli_cmd *c, FILE *f)
{
	size_t i, w = 0, len;
	char *mv, *takes;

	fprintf(f, "usage: mapmon %s\n", c->usage);
	if (*c->help != '\0')
		fprintf(f, "%s\n", c->help);
	for (i = 0; i < c->nargs; i++) {
		mv = cli_arg_metavar(&c->args[i]);
		len = c->args[i].type == CLI_ARG_FLAG ?
		    strlen(c->args[i].option) :
		    strlen(mv);
		if (len > w)
			w = len;
		free(mv);
	}
	for (i = 0; i < c->nargs; i++) {
		mv = cli_arg_metavar(&c->args[i]);
		takes = cli_arg_takes(&c->args[i]);
		fprintf(f, "  %-*s  %s%s\n", (int)w,
		    c->args[i].type == CLI_ARG_FLAG ? c->args[i].option : mv,
		    takes, c->args[i].required ? "" : " (optional)");
		free(takes);
		free(mv);
	}
}

void
cli_table_print_args(const struct cli_table *t, FILE *f)
{
	const struct cli_cmd *c;
	const struct cli_arg *a;
	size_t i, k, j;

	for (i = 0; i < t->ncmds; i++) {
		c = &t->cmds[i];
		if (c->flags & CLI_CMD_HIDDEN)
			continue;
		fputs(c->prefix, f);
		for (k = 0; k < c->nargs; k++) {
			a = &c->args[k];
			fprintf(f, "\t%s:%s:%d:%s:", a->name,
			    cli_arg_types[a->type].name, a->required != 0,
			    a->option != NULL ? a->option : "");
			for (j = 0; j < a->nchoices; j++)
				fprintf(f, "%s%s", j ? "|" : "", a->choices[j]);
		}
		fputc('\n', f);
	}
}

size_t
cli_table_closest(const struct cli_table *t, char *const *words, size_t n,
    const struct cli_cmd **out, size_t max)
{
	struct {
		size_t shared; /* leading words alike */
		size_t dist;   /* of the first word that differs */
		int taken;
	} * score;
	const struct cli_cmd *c;
	size_t i, k, best, got = 0;

	if (max == 0 || t->ncmds == 0)
		return 0;
	score = xcalloc(t->ncmds, sizeof *score);
	for (i = 0; i < t->ncmds; i++) {
		c = &t->cmds[i];
		for (k = 0; k < n && k < c->nwords; k++)
			if (strcmp(words[k], c->words[k]) != 0)
				break;
		score[i].shared = k;
		score[i].dist = k < n && k < c->nwords ?
		    suggest_distance(words[k], c->words[k]) :
		    SIZE_MAX;
	}
	/* A selection: few are wanted of a table of some dozens. */
	while (got < max) {
		best = t->ncmds;
		for (i = 0; i < t->ncmds; i++) {
			if ((t->cmds[i].flags & CLI_CMD_HIDDEN) ||
			    score[i].taken)
				continue;
			if (best == t->ncmds ||
			    score[i].shared > score[best].shared ||
			    (score[i].shared == score[best].shared &&
				score[i].dist < score[best].dist))
				best = i;
		}
		if (best == t->ncmds)
			break;
		/* Nothing in common at all is no match. */
		if (score[best].shared == 0 &&
		    (score[best].dist == SIZE_MAX ||
			score[best].dist > SUGGEST_MAX))
			break;
		out[got++] = &t->cmds[best];
		score[best].taken = 1;
	}
	free(score);
	return got;
}
