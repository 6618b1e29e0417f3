// SPDX-License-Identifier: GPL-2.0
/*
 * The queue state machine: one state per queue (SQ/CQ pair) of a
 * controller, shared by the core (the Fabrics Connect) and the transport
 * (its connection), changed by one transition function.
 *
 *   FREE -> STARTING -> LIVE ----------------------> CONNECTED
 *              |          |  \-> AUTHENTICATING ---/     |
 *              |          |            |                 |
 *              +------> FAILED <-------+-----------------+
 *              |          |
 *   FREE <-----+-------- STOPPED <- LIVE, AUTHENTICATING, CONNECTED
 *
 * AUTHENTICATING is a queue whose Connect asked for DH-HMAC-CHAP
 * (auth.c): connected, but only the authentication may use it yet.
 *
 * A failed start goes back to FREE (the transport undoes it); every other
 * queue is stopped before it is freed. FAILED is entered once per start,
 * by whoever sees the first error: a second error on the same queue
 * (a protocol error, then the connection closing) loses the transition
 * and does nothing, so a queue is failed, and its commands cancelled,
 * once.
 */
#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/device.h>

#include <nvfab/compat.h>
#include "nvfab.h"
#include "trace.h"

/**
 * nvfab_queue_transition_ok() - is @old -> @new a transition of the
 *	queue state machine?
 * @old: the current state
 * @new: the wanted state
 *
 * Context: any context.
 * Return: true if allowed.
 */
VISIBLE_IF_KUNIT bool nvfab_queue_transition_ok(enum nvfab_queue_state old,
						enum nvfab_queue_state new)
{
	switch (new) {
	case NVFAB_QUEUE_STARTING:
		return old == NVFAB_QUEUE_FREE;
	case NVFAB_QUEUE_LIVE:
		return old == NVFAB_QUEUE_STARTING;
	case NVFAB_QUEUE_AUTHENTICATING:
		return old == NVFAB_QUEUE_LIVE;
	case NVFAB_QUEUE_CONNECTED:
		return old == NVFAB_QUEUE_LIVE ||
		       old == NVFAB_QUEUE_AUTHENTICATING;
	case NVFAB_QUEUE_FAILED:
		return old == NVFAB_QUEUE_STARTING || old == NVFAB_QUEUE_LIVE ||
		       old == NVFAB_QUEUE_AUTHENTICATING ||
		       old == NVFAB_QUEUE_CONNECTED;
	case NVFAB_QUEUE_STOPPED:
		return old == NVFAB_QUEUE_LIVE ||
		       old == NVFAB_QUEUE_AUTHENTICATING ||
		       old == NVFAB_QUEUE_CONNECTED || old == NVFAB_QUEUE_FAILED;
	case NVFAB_QUEUE_FREE:
		/* a stopped queue, or a start that failed and was undone */
		return old == NVFAB_QUEUE_STOPPED ||
		       old == NVFAB_QUEUE_STARTING || old == NVFAB_QUEUE_FAILED;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(nvfab_queue_transition_ok);

/**
 * nvfab_change_queue_state() - the queue state machine
 * @ctrl: the controller
 * @qid: the queue ID, below @ctrl->nr_queue_state
 * @new_state: the state to move to
 *
 * The one transition function of a queue: an atomic compare-and-exchange
 * against the allowed transitions (nvfab_queue_transition_ok()). Callers
 * use a lost transition as mutual exclusion: the one that moves a queue
 * to FAILED reports the error and starts its recovery, the one that moves
 * it to STOPPED stops it.
 *
 * Context: any context (softirq and the socket callbacks included); no
 * lock.
 * Return: true if the state changed, false if the transition is not
 * allowed from the current state (nothing changed).
 */
bool nvfab_change_queue_state(struct nvfab_ctrl *ctrl, int qid,
			      enum nvfab_queue_state new_state)
{
	atomic_t *state = &ctrl->queue_state[qid];
	int old = atomic_read(state);

	do {
		if (!nvfab_queue_transition_ok(old, new_state))
			return false;
	} while (!atomic_try_cmpxchg(state, &old, new_state));
	trace_nvfab_queue_state(ctrl, qid, old, new_state);
	return true;
}
EXPORT_SYMBOL_NVFAB(nvfab_change_queue_state);

/**
 * nvfab_fail_queue_va() - report the first error of a queue
 * @ctrl: the controller
 * @qid: the queue ID, below @ctrl->nr_queue_state
 * @fmt: what went wrong, for the log ("queue QID: " is put before it)
 * @args: its arguments
 *
 * Moves the queue to NVFAB_QUEUE_FAILED and logs the error, once: a queue
 * that failed already (a protocol error, then the target's close), or
 * that is stopped or not started, is left as it is and nothing is logged.
 * The caller then recovers the queue (error recovery of a live
 * controller, its fail_work while the controller connects).
 *
 * Context: any context (softirq and the socket callbacks included).
 * Return: true if this call failed the queue (the caller recovers it),
 * false otherwise.
 */
bool nvfab_fail_queue_va(struct nvfab_ctrl *ctrl, int qid, const char *fmt,
			 va_list args)
{
	struct va_format vaf;
	va_list aq;

	if (!nvfab_change_queue_state(ctrl, qid, NVFAB_QUEUE_FAILED))
		return false;
	/* a va_list parameter is a pointer here: %pV takes a copy's address */
	va_copy(aq, args);
	vaf.fmt = fmt;
	vaf.va = &aq;
	dev_err(ctrl->device, "queue %d: %pV\n", qid, &vaf);
	va_end(aq);
	return true;
}
EXPORT_SYMBOL_NVFAB(nvfab_fail_queue_va);
