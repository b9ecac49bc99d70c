// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ttymodes.c - which terminal modes the command left set (see ttymodes.h).
 *
 * Theory of operation. The terminal filter hands over every sequence and
 * control byte it lets through to the caller's terminal, whole (never a
 * part: ttyfilter.c writes complete tokens only), so the state kept here
 * is the state the terminal is in, as far as these modes go. At exit the
 * runner writes jr_ttymodes_reset() to the terminal: only the resets of
 * what is set, never a blanket reset. A blanket one would do harm: with
 * the alternate screen not in use, CSI ? 1049 l still restores a saved
 * cursor (xterm), moving the cursor over the caller's prompt; RIS and
 * DECSTR would clear the screen or reset modes the caller set.
 *
 * The modes, their resets, and where they are defined (xterm's "Control
 * Sequences" document, ctlseqs, unless said otherwise):
 *  - the alternate screen: CSI ? 47 / 1047 / 1049 h, left with the same
 *    number and l (1049 l restores the cursor 1049 h saved);
 *  - mouse tracking and its encodings: CSI ? 9, 1000-1003 h (X10, normal,
 *    highlight, button-event, any-event), 1004 (focus events), 1005,
 *    1006, 1015, 1016 (UTF-8, SGR, urxvt, SGR-pixel coordinates): l;
 *  - the hidden cursor: CSI ? 25 l, shown with CSI ? 25 h (DECTCEM);
 *  - bracketed paste (CSI ? 2004), application cursor keys (CSI ? 1,
 *    DECCKM), no autowrap (CSI ? 7 l, DECAWM), synchronized output
 *    (CSI ? 2026 h, the terminal-wg's "synchronized updates", which holds
 *    the screen until l), insert mode (CSI 4 h, IRM), the application
 *    keypad (ESC =, DECKPAM; ESC > is DECKPNM), modifyOtherKeys
 *    (CSI > 4 ; N m; CSI > 4 m resets it, XTMODKEYS), graphic rendition
 *    (SGR; CSI m);
 *  - charsets: SO, or LS2/LS3 (ESC n, ESC o), shift another set into GL,
 *    SI (LS0) shifts G0 back; ESC ( F designates F as G0, ESC ( B makes it
 *    US-ASCII again (the DEC line-drawing set is ESC ( 0);
 *  - the kitty keyboard protocol (kitty's "Comprehensive keyboard
 *    handling in terminals"): CSI > flags u pushes an entry on the
 *    current screen's stack, CSI < N u pops N, CSI = flags ; mode u
 *    changes the top entry. The main and the alternate screen keep stacks
 *    of their own, so entries pushed on the alternate screen are popped
 *    there, before leaving it; a CSI = on an entry the command did not
 *    push (the caller's) is undone with CSI = 0 ; 1 u.
 * RIS (ESC c) puts every one of them back. DECSTR (CSI ! p) is not
 * followed: it resets some of them, and a reset written again is
 * harmless for all of them but the alternate screen, which DECSTR leaves
 * alone.
 */
#include <stdio.h>
#include <string.h>

#include "ttymodes.h"

#define SO 0x0e
#define SI 0x0f
#define KITTY_MAX 9999 /* more entries pushed than any stack keeps */

/* DEC private modes (CSI ? N h / l) other than the alternate screen. */
static const struct {
	uint16_t mode;
	bool on_by_default; /* reset is h (else l) */
} dec_modes[] = {
	{ 1, false },	 /* DECCKM: application cursor keys */
	{ 7, true },	 /* DECAWM: autowrap */
	{ 9, false },	 /* X10 mouse */
	{ 25, true },	 /* DECTCEM: the cursor is shown */
	{ 1000, false }, /* mouse: press and release */
	{ 1001, false }, /* mouse: highlight tracking */
	{ 1002, false }, /* mouse: button-event (drag) */
	{ 1003, false }, /* mouse: any-event (motion) */
	{ 1004, false }, /* focus in/out events */
	{ 1005, false }, /* mouse: UTF-8 coordinates */
	{ 1006, false }, /* mouse: SGR coordinates */
	{ 1015, false }, /* mouse: urxvt coordinates */
	{ 1016, false }, /* mouse: SGR pixel coordinates */
	{ 2004, false }, /* bracketed paste */
	{ 2026, false }, /* synchronized output */
};

_Static_assert(sizeof(dec_modes) / sizeof(dec_modes[0]) <= 32,
	       "struct jr_ttymodes.dec has 32 bits");

#define N_DEC (sizeof(dec_modes) / sizeof(dec_modes[0]))
#define PARAMS_MAX 32

void jr_ttymodes_init(struct jr_ttymodes *m)
{
	memset(m, 0, sizeof(*m));
}

void jr_ttymodes_control(struct jr_ttymodes *m, uint8_t c)
{
	if (c == SO)
		m->gl_shifted = true;
	else if (c == SI)
		m->gl_shifted = false;
}

static void dec_mode(struct jr_ttymodes *m, int mode, bool set)
{
	if (mode == 47 || mode == 1047 || mode == 1049) {
		/* Any of them leaves it; entering it again does nothing. */
		if (!set)
			m->alt_screen = 0;
		else if (!m->alt_screen)
			m->alt_screen = mode;
		return;
	}
	for (size_t i = 0; i < N_DEC; i++) {
		if (dec_modes[i].mode != mode)
			continue;
		if (set != dec_modes[i].on_by_default)
			m->dec |= 1u << i;
		else
			m->dec &= ~(1u << i);
		return;
	}
}

static void kitty(struct jr_ttymodes *m, int prefix, const int *p, size_t np)
{
	int s = m->alt_screen ? 1 : 0;
	int n = np ? p[0] : -1;

	switch (prefix) {
	case '>': /* push */
		if (m->kitty_pushed[s] < KITTY_MAX)
			m->kitty_pushed[s]++;
		break;
	case '<': /* pop N, default 1 */
		n = n < 1 ? 1 : n;
		m->kitty_pushed[s] = (unsigned)n >= m->kitty_pushed[s]
					 ? 0
					 : m->kitty_pushed[s] - (unsigned)n;
		break;
	case '=': /* change the top entry */
		if (!m->kitty_pushed[s] && !(n <= 0 && (np < 2 || p[1] <= 1)))
			m->kitty_set[s] = true;
		break;
	}
}

static void csi(struct jr_ttymodes *m, const uint8_t *b, size_t n)
{
	int p[PARAMS_MAX], prefix = 0;
	size_t np = 0, ninter = 0;
	long cur = -1;
	uint8_t final = b[n - 1];
	bool all_zero = true;

	for (size_t i = 0; i + 1 < n; i++) {
		uint8_t c = b[i];

		if (c < 0x20) {
			jr_ttymodes_control(m, c);
		} else if (c >= 0x3c && c <= 0x3f) {
			prefix = c;
		} else if (c >= '0' && c <= '9') {
			cur = (cur < 0 ? 0 : cur) * 10 + (c - '0');
			if (cur > 99999)
				cur = 99999;
		} else if (c == ';' || c == ':') {
			if (np < PARAMS_MAX)
				p[np++] = (int)cur;
			cur = -1;
		} else {
			ninter++;
		}
	}
	if (np < PARAMS_MAX)
		p[np++] = (int)cur;
	if (ninter)
		return; /* DECSTR (CSI ! p) and the like: see the top */
	switch (final) {
	case 'h':
	case 'l':
		for (size_t i = 0; i < np; i++) {
			if (prefix == '?')
				dec_mode(m, p[i], final == 'h');
			else if (!prefix && p[i] == 4)
				m->insert_mode = final == 'h';
		}
		break;
	case 'u':
		kitty(m, prefix, p, np);
		break;
	case 'm':
		if (prefix == '>') {
			/* XTMODKEYS: CSI > 4 ; N m, or CSI > m (all) */
			if (p[0] < 0)
				m->modify_keys = false;
			else if (p[0] == 4)
				m->modify_keys = np > 1 && p[1] > 0;
		} else if (!prefix) {
			for (size_t i = 0; i < np; i++)
				all_zero = all_zero && p[i] <= 0;
			m->sgr = !all_zero;
		}
		break;
	case 'n':
		/* XTMODKEYS off: CSI > 4 n, or CSI > n (all) */
		if (prefix == '>' && (p[0] < 0 || p[0] == 4))
			m->modify_keys = false;
		break;
	}
}

static void esc(struct jr_ttymodes *m, const uint8_t *b, size_t n)
{
	uint8_t final = b[n - 1], first = 0;
	size_t ninter = 0;

	for (size_t i = 0; i + 1 < n; i++) {
		if (b[i] < 0x20) {
			jr_ttymodes_control(m, b[i]);
			continue;
		}
		if (!ninter++)
			first = b[i];
	}
	if (first == '(') {
		m->g0_changed = !(ninter == 1 && final == 'B');
		return;
	}
	if (ninter)
		return;
	switch (final) {
	case 'c': /* RIS */
		jr_ttymodes_init(m);
		break;
	case '=':
		m->keypad_app = true;
		break;
	case '>':
		m->keypad_app = false;
		break;
	case 'n': /* LS2 */
	case 'o': /* LS3 */
		m->gl_shifted = true;
		break;
	}
}

void jr_ttymodes_seq(struct jr_ttymodes *m, const uint8_t *seq, size_t len,
		     size_t body, bool is_csi)
{
	for (size_t i = 0; i < body && i < len; i++)
		if (seq[i] < 0x20 && seq[i] != 0x1b)
			jr_ttymodes_control(m, seq[i]);
	if (len <= body)
		return;
	if (is_csi)
		csi(m, seq + body, len - body);
	else
		esc(m, seq + body, len - body);
}

/* Append @s to @out at *@off (JR_TTYMODES_RESET_MAX is never reached:
 * every reset at once is well below it). */
static void put(char *out, size_t *off, const char *s)
{
	size_t n = strlen(s);

	if (*off + n < JR_TTYMODES_RESET_MAX) {
		memcpy(out + *off, s, n);
		*off += n;
	}
}

static void kitty_reset(const struct jr_ttymodes *m, int s, char *out,
			size_t *off)
{
	char b[32];

	if (m->kitty_pushed[s]) {
		snprintf(b, sizeof(b), "\033[<%uu", m->kitty_pushed[s]);
		put(out, off, b);
	}
	if (m->kitty_set[s])
		put(out, off, "\033[=0;1u");
}

size_t jr_ttymodes_reset(const struct jr_ttymodes *m, char *out)
{
	size_t off = 0;
	char b[32];

	if (m->alt_screen) {
		/* The alternate screen's keyboard stack is its own. */
		kitty_reset(m, 1, out, &off);
		snprintf(b, sizeof(b), "\033[?%dl", m->alt_screen);
		put(out, &off, b);
	}
	kitty_reset(m, 0, out, &off);
	for (size_t i = 0; i < N_DEC; i++) {
		if (!(m->dec & (1u << i)))
			continue;
		snprintf(b, sizeof(b), "\033[?%u%c", dec_modes[i].mode,
			 dec_modes[i].on_by_default ? 'h' : 'l');
		put(out, &off, b);
	}
	if (m->insert_mode)
		put(out, &off, "\033[4l");
	if (m->keypad_app)
		put(out, &off, "\033>");
	if (m->modify_keys)
		put(out, &off, "\033[>4m");
	if (m->sgr)
		put(out, &off, "\033[m");
	if (m->g0_changed)
		put(out, &off, "\033(B");
	if (m->gl_shifted)
		put(out, &off, "\x0f");
	out[off] = '\0';
	return off;
}
