/* relay.h: standard input and output relayed to a Unix socket (powercut
 * pipe: what a qemu guest's forwarded connections run through).
 */
#ifndef POWERCUT_RELAY_H
#define POWERCUT_RELAY_H

#include "util/err.h"

/* Connects to the Unix socket at path and relays: what in gives to the
 * socket (its end shuts the socket's sending side), what the socket
 * sends to out, until the socket is done or out takes no more.  Returns
 * 0, or -errno with "PATH: REASON" in err if it cannot connect. */
int pc_relay_unix (const char *path, int in, int out, struct pc_err *err);

#endif
