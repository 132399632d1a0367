/*
 * mon_conf.h: the config, turned into what the store and the monitor take.
 * (conf/ knows nothing of them, and they nothing of conf/: this is the glue.)
 */
#ifndef MON_CONF_H
#define MON_CONF_H

#include "conf/conf.h"
#include "mon/mon.h"
#include "store/store.h"

/* [store], [store.leveldb], [store.lmdb] into *o (backend from [store]). */
void mon_conf_store_options(const struct conf *, struct store_options *o);
/* [mon]'s monitor parameters into *p. */
void mon_conf_params(const struct conf *, struct mon_params *p);

#endif
