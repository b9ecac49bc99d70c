/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ttymodes.h - the terminal modes the command left set, and the sequence
 * that puts them back, written to the caller's terminal at exit.
 *
 * A program that dies (or is killed) in the alternate screen, with mouse
 * tracking or the kitty keyboard protocol on, the cursor hidden or the
 * line-drawing charset in, leaves the caller's terminal unusable: the
 * shell's prompt goes to the alternate screen, clicks type escape codes,
 * keys arrive encoded, text turns to box drawing. The terminal filter
 * (ttyfilter.c) reports each sequence it lets through; this tracks what
 * they set. Pure: no I/O. See ttymodes.c for the list and the sources.
 */
#ifndef JR_TTYMODES_H
#define JR_TTYMODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room jr_ttymodes_reset() needs at most. */
#define JR_TTYMODES_RESET_MAX 256

struct jr_ttymodes {
	uint32_t dec;	  /* DEC private modes away from their default,
			     one bit per entry of the table in ttymodes.c */
	int alt_screen;	  /* 47, 1047 or 1049 that entered it; 0: none */
	bool insert_mode; /* CSI 4 h (IRM) */
	bool keypad_app;  /* ESC = (DECKPAM) */
	bool modify_keys; /* CSI > 4 ; N m, N != 0 (modifyOtherKeys) */
	bool sgr;	  /* an SGR attribute set and not reset */
	bool gl_shifted;  /* SO, ESC n or ESC o: GL is not G0 */
	bool g0_changed;  /* ESC ( F with F not B (US-ASCII) */
	/* kitty keyboard protocol, per screen (0 main, 1 alternate): the
	 * entries pushed and not popped, and whether CSI = changed the
	 * entry below them (the caller's own). */
	unsigned kitty_pushed[2];
	bool kitty_set[2];
};

/* A terminal in its defaults: nothing to reset. */
void jr_ttymodes_init(struct jr_ttymodes *m);

/*
 * jr_ttymodes_seq - a complete escape sequence the terminal gets.
 * @seq, @len: the whole sequence, introducer to final byte
 * @body: where the introducer ends (ESC [ is 2, C2 9B is 2, ESC is 1)
 * @csi: a CSI sequence (else an ESC sequence)
 * Control bytes inside are executed by the terminal on the way, so SO and
 * SI there count too.
 */
void jr_ttymodes_seq(struct jr_ttymodes *m, const uint8_t *seq, size_t len,
		     size_t body, bool csi);

/* jr_ttymodes_control - a C0 control byte the terminal gets. */
void jr_ttymodes_control(struct jr_ttymodes *m, uint8_t c);

/*
 * jr_ttymodes_reset - the bytes that put back every mode @m says is set,
 * in an order that works (the alternate screen's keyboard entries are
 * popped on it, before leaving it), into @out (JR_TTYMODES_RESET_MAX).
 * Never clears the screen or moves the cursor (but for leaving the
 * alternate screen, which restores the cursor as it was).
 * Return: the number of bytes, 0 when nothing is set.
 */
size_t jr_ttymodes_reset(const struct jr_ttymodes *m, char *out);

#endif
