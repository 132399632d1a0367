/*
 * json_get.c: print values out of a JSON document, for the shell tests
 * (which cannot count on jq).
 *
 *	json_get PATH...	< doc.json
 *
 * A PATH is dot-separated: object keys, array indexes ("pgmap.
 * pgs_by_state.0.state_name"); "." alone is the whole document.  The last
 * segment may be "#" (the size of an array or object) or "@keys" (an
 * object's keys, sorted, comma-separated).  Each PATH prints one line:
 * strings as they are, anything else as compact JSON.  A path that does
 * not exist prints nothing and makes the exit status 1; a document that is
 * not JSON exits 2.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
print_keys(json_t *o)
{
	const char **keys, *k;
	json_t *v;
	size_t n = 0, i;

	keys = calloc(json_object_size(o) + 1, sizeof *keys);
	if (keys == NULL)
		exit(2);
	json_object_foreach(o, k, v)
		keys[n++] = k;
	qsort(keys, n, sizeof *keys, cmp);
	for (i = 0; i < n; i++)
		printf("%s%s", i ? "," : "", keys[i]);
	printf("\n");
	free(keys);
}

/* Print the value at path; 0, or 1 when it does not exist. */
static int
get(json_t *doc, const char *path)
{
	char *copy, *seg, *save = NULL, *end, *s;
	json_t *v = doc;
	long idx;

	copy = strdup(path);
	if (copy == NULL)
		exit(2);
	for (seg = strtok_r(copy, ".", &save); seg != NULL && v != NULL;
	    seg = strtok_r(NULL, ".", &save)) {
		if (strcmp(seg, "#") == 0) {
			if (json_is_array(v))
				printf("%zu\n", json_array_size(v));
			else if (json_is_object(v))
				printf("%zu\n", json_object_size(v));
			else
				break;
			free(copy);
			return 0;
		}
		if (strcmp(seg, "@keys") == 0) {
			if (!json_is_object(v))
				break;
			print_keys(v);
			free(copy);
			return 0;
		}
		if (json_is_array(v)) {
			idx = strtol(seg, &end, 10);
			v = *seg != '\0' && *end == '\0' && idx >= 0 ?
			    json_array_get(v, (size_t)idx) : NULL;
		} else if (json_is_object(v))
			v = json_object_get(v, seg);
		else
			v = NULL;
	}
	free(copy);
	if (v == NULL || seg != NULL)
		return 1;
	if (json_is_string(v))
		printf("%s\n", json_string_value(v));
	else {
		s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		printf("%s\n", s != NULL ? s : "");
		free(s);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	json_error_t err;
	json_t *doc;
	int i, rv = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: json_get PATH... < doc.json\n");
		return 2;
	}
	doc = json_loadf(stdin, JSON_DECODE_ANY, &err);
	if (doc == NULL) {
		fprintf(stderr, "json_get: line %d: %s\n", err.line, err.text);
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (get(doc, argv[i]) != 0)
			rv = 1;
	json_decref(doc);
	return rv;
}
