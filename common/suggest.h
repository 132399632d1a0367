/*
 * suggest.h: "did you mean": one rule for every name a user can mistype,
 * config sections, keys and values (conf/) as much as command prefixes and
 * the keys of `config get|set` (mon/cmd.c, mon/cmd_admin.c), so that one
 * typo is never judged two ways.
 *
 * The rule:
 *  - the distance from what was typed to a known name is their optimal
 *    string alignment distance with letters compared regardless of case:
 *    inserting, deleting or changing a character, or swapping two
 *    neighbours, costs 1 each ("propose_intreval" is 1 from
 *    "propose_interval", "STATUS" 0 from "status");
 *  - a known name may be suggested when that distance is at most
 *    SUGGEST_MAX and less than the length of what was typed (a single
 *    letter suggests nothing);
 *  - of several, the nearest is suggested; of equally near ones, the one
 *    offered first.
 * Names longer than SUGGEST_NAME_MAX bytes are near nothing.
 */
#ifndef SUGGEST_H
#define SUGGEST_H

#include <stddef.h>

#define SUGGEST_MAX 3
#define SUGGEST_NAME_MAX 64

/*
 * The distance between a and b as the rule counts it; SIZE_MAX when either
 * is longer than SUGGEST_NAME_MAX.  Allocates nothing.
 */
size_t suggest_distance(const char *a, const char *b);

/*
 * The search for the nearest known name: suggest_init(), then
 * suggest_offer() for each candidate in order; `best` is then the name to
 * suggest (NULL: none may be).  best points at an offered string, so it is
 * valid as long as that string is; typed must outlive the search.
 */
struct suggest {
	const char *typed;
	const char *best;	/* the nearest offered so far, or NULL */
	size_t distance;	/* its distance; SIZE_MAX while best is NULL */
};

/* Starts a search for names near typed. */
void suggest_init(struct suggest *, const char *typed);

/*
 * Offers known: returns 1 when it may be suggested and is nearer than
 * every earlier offer (it is then best), 0 otherwise.
 */
int suggest_offer(struct suggest *, const char *known);

#endif /* SUGGEST_H */
