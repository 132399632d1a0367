/* suggest.c: the nearest known name to a mistyped one. */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "common/suggest.h"

static int
suggest_same(char a, char b)
{
	return tolower((unsigned char)a) == tolower((unsigned char)b);
}

size_t
suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d, best;
	size_t rows[3][SUGGEST_NAME_MAX + 1];
	size_t *row0 = rows[0], *row1 = rows[1], *row2 = rows[2], *t;

	if (la > SUGGEST_NAME_MAX || lb > SUGGEST_NAME_MAX)
		return SIZE_MAX;
	/* row2 is row i, row1 row i - 1, row0 row i - 2 (for swaps). */
	for (j = 0; j <= lb; j++)
		row1[j] = j;
	for (i = 1; i <= la; i++) {
		row2[0] = i;
		for (j = 1; j <= lb; j++) {
			best = row1[j - 1] + !suggest_same(a[i - 1], b[j - 1]);
			if ((d = row1[j] + 1) < best)
				best = d;
			if ((d = row2[j - 1] + 1) < best)
				best = d;
			if (i > 1 && j > 1 &&
			    suggest_same(a[i - 1], b[j - 2]) &&
			    suggest_same(a[i - 2], b[j - 1]) &&
			    (d = row0[j - 2] + 1) < best)
				best = d;
			row2[j] = best;
		}
		t = row0;
		row0 = row1;
		row1 = row2;
		row2 = t;
	}
	return row1[lb];
}

void
suggest_init(struct suggest *s, const char *typed)
{
	s->typed = typed;
	s->best = NULL;
	s->distance = SIZE_MAX;
}

int
suggest_offer(struct suggest *s, const char *known)
{
	size_t d = suggest_distance(s->typed, known);

	if (d > SUGGEST_MAX || d >= strlen(s->typed) || d >= s->distance)
		return 0;
	s->best = known;
	s->distance = d;
	return 1;
}
