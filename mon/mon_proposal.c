/*
 * mon_proposal.c: a proposal's life.  The loop makes one when the first
 * change of a commit is staged (mon_stage.c), seals it and hands it to the
 * committer thread; once it is back and applied or undone (mon_apply.c),
 * its PG arrays are kept for the next one and the rest is freed.  Only the
 * loop makes, recycles and frees proposals; the lookups only read one, and
 * the committer thread uses them on the proposal it holds.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "common/stamp.h"
#include "mon/mon_priv.h"

struct mon_proposal *
mon_proposal_new(struct mon *m)
{
	struct mon_proposal *p = xcalloc(1, sizeof *p);
	struct mon_pgbufs *b = &m->spare_pgs;

	if (b->pgs != NULL) {
		p->pgs = b->pgs;
		p->pg_dead = b->pg_dead;
		p->cappgs = b->cappgs;
		p->index = b->index;
		memset(b, 0, sizeof *b);
	}
	p->seq = m->next_seq++;
	p->pgs_hint = (size_t)m->pgmap.sums.num_pgs;
	if (p->pgs_hint > (size_t)MON_PENDING_MAX(m))
		p->pgs_hint = (size_t)MON_PENDING_MAX(m);
	osdmap_inc_init(&p->inc, 0);
	osdmap_init(&p->osdmap);
	p->sealed_mono = stamp_mono();	/* first change, until sealed */
	return p;
}

void
mon_proposal_free(struct mon_proposal *p)
{
	size_t i;

	if (p == NULL)
		return;
	osdmap_inc_clear(&p->inc);
	osdmap_clear(&p->osdmap);
	free(p->pgs);
	free(p->pg_dead);
	mon_pgindex_free(&p->index);
	for (i = 0; i < p->nnewpgs; i++)
		free(p->newpgs[i].pgs);
	free(p->newpgs);
	free(p->removed_pools);
	free(p->statfs);
	for (i = 0; i < p->nlog; i++)
		free(p->log[i].message);
	free(p->log);
	mon_mute_free(p->mutes, p->nmutes);
	for (i = 0; i < p->nauth; i++)
		mon_auth_entity_clear(&p->auth[i].e);
	free(p->auth);
	for (i = 0; i < p->nwaiters; i++) {
		free(p->waiters[i].status);
		json_decref(p->waiters[i].data);
	}
	free(p->waiters);
	free(p->cause);
	enc_buf_free(&p->pg_text);
	free(p);
}

/* PG arrays to the committer thread to free (mon_apply_garbage()). */
static void
mon_proposal_drop(struct mon *m, struct pg_stat **pgs, uint8_t **dead,
    struct mon_pgindex *x)
{
	mon_apply_garbage(m, *pgs);
	mon_apply_garbage(m, *dead);
	mon_apply_garbage(m, x->keys);
	mon_apply_garbage(m, x->vals);
	*pgs = NULL;
	*dead = NULL;
	memset(x, 0, sizeof *x);
}

/*
 * Only the larger set of arrays is kept: a proposal grows to what the
 * reports between two commits need, and that is what the next one will
 * need.
 */
void
mon_proposal_recycle(struct mon *m, struct mon_proposal *p)
{
	struct mon_pgbufs *b = &m->spare_pgs;

	if (p->pgs != NULL && p->cappgs > b->cappgs) {
		mon_proposal_drop(m, &b->pgs, &b->pg_dead, &b->index);
		mon_pgindex_reset(&p->index);
		b->pgs = p->pgs;
		b->pg_dead = p->pg_dead;
		b->cappgs = p->cappgs;
		b->index = p->index;
		b->kept_mono = stamp_mono();
		p->pgs = NULL;
		p->pg_dead = NULL;
		memset(&p->index, 0, sizeof p->index);
	} else if (p->pgs != NULL)
		mon_proposal_drop(m, &p->pgs, &p->pg_dead, &p->index);
	mon_proposal_free(p);
}

void
mon_proposal_spare_trim(struct mon *m, int64_t mono)
{
	struct mon_pgbufs *b = &m->spare_pgs;

	if (b->pgs != NULL && mono - b->kept_mono >= 1000000) {
		mon_proposal_drop(m, &b->pgs, &b->pg_dead, &b->index);
		b->cappgs = 0;
	}
}

void
mon_proposal_spare_free(struct mon *m)
{
	struct mon_pgbufs *b = &m->spare_pgs;

	free(b->pgs);
	free(b->pg_dead);
	mon_pgindex_free(&b->index);
	memset(b, 0, sizeof *b);
}

int
mon_proposal_empty(const struct mon_proposal *p)
{
	return !p->has_inc && p->npgs == 0 && p->nnewpgs == 0 &&
	    p->nremoved_pools == 0 && p->nlog == 0 && !p->has_mutes &&
	    p->nauth == 0 && !p->has_monmap && p->nstatfs == 0 &&
	    !p->capacity_due && !p->has_view && !p->view_due;
}

const struct pg_stat *
mon_proposal_pg(const struct mon_proposal *p, struct pg_id id)
{
	uint32_t i;

	if (p == NULL || !mon_pgindex_get(&p->index, id, &i) || p->pg_dead[i])
		return NULL;
	return &p->pgs[i];
}

int
mon_proposal_creates(const struct mon_proposal *p, struct pg_id id)
{
	size_t j;

	for (j = 0; j < p->nnewpgs; j++)
		if (p->newpgs[j].pool == id.pool &&
		    id.seed >= p->newpgs[j].from && id.seed < p->newpgs[j].to)
			return 1;
	return 0;
}
