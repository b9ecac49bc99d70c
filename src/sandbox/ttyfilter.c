// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ttyfilter.c - drop the terminal sequences that act outside the pane.
 *
 * Theory of operation. A terminal is a parser: the bytes a program writes
 * are text, controls and escape sequences, and a few sequences act on the
 * host rather than on the pane: OSC 52 writes the caller's clipboard, OSC
 * 0/2 the window title, DCS passthrough reaches the terminal beneath tmux,
 * CSI 21 t types the title back into the input, and so on (the table
 * below, with a reason each). The command in the sandbox is hostile, so
 * the runner parses its output the way the terminal will and writes on
 * only what stays inside the pane.
 *
 * The parser is the usual VT state machine (ground, escape, CSI, string;
 * see the DEC ANSI parser at vt100.net), fed one byte at a time, so a
 * sequence split across read() chunks is the same as a whole one. It keeps
 * at most one CSI or ESC sequence (JR_TTYFILTER_SEQ_MAX bytes) and one
 * UTF-8 character; strings (OSC, DCS, SOS, PM, APC) are never kept, only
 * counted while they are swallowed, and given up after
 * JR_TTYFILTER_STRING_MAX bytes without a terminator (BEL for OSC, ST as
 * ESC \, 0x9c or C2 9C, CAN or SUB).
 *
 * What makes it safe is less the table than two rules of the output:
 *  - Only complete tokens are written: text, a control byte, or a whole
 *    escape sequence that the table allows. A sequence cut short (by ESC,
 *    CAN, SUB or a non-ASCII byte) is dropped whole, introducer and all.
 *    So the terminal is in its ground state between any two tokens, and
 *    dropping a sequence can never splice its neighbours into a new one
 *    ("ESC" + dropped + "]52;..." must not become ESC ]).
 *  - The output is valid UTF-8. Invalid bytes become U+FFFD, as the
 *    terminal would show them, so the terminal cannot decode a C1 control
 *    where the filter saw none. C1 controls written as UTF-8 (C2 80-C2 9f)
 *    are parsed as the controls they are, since a terminal may act on
 *    U+009B as CSI. Raw 0x80-0x9f outside a character are invalid, hence
 *    U+FFFD.
 * A terminal whose locale is not UTF-8 (xterm in 8-bit mode, the Linux
 * console without vt.default_utf8) reads raw 0x9b, 0x9d, 0x90, 0x98, 0x9e
 * and 0x9f as CSI, OSC, DCS, SOS, PM and APC even inside a valid UTF-8
 * character ("Ý" is C3 9D). With c1_terminal set, such characters are
 * written as U+FFFD too; the runner sets it when the caller's locale does
 * not say UTF-8. ESC % (which switches the terminal's encoding) is dropped
 * so the terminal stays in the mode the filter assumes.
 *
 * Answers. DA, DSR (the cursor position report many line editors need),
 * DECRQM and XTVERSION pass: their answers have a fixed form (digits and
 * a final letter, or the terminal's own name), carry no data of the
 * sandbox's choosing and no host data, and go to the runner's stdin,
 * which is relayed to the sandbox. Answers that carry host data or text
 * the sandbox chose (title, clipboard, colours, screen contents, DECRQSS,
 * XTGETTCAP, the answerback) are dropped with the request.
 *
 * OSC is dropped whole, known numbers or not: every OSC a program uses
 * acts on the terminal outside the pane (titles, cwd, notifications,
 * colours, links), and an allowlist of none needs no update when a
 * terminal invents a new one. The known numbers are listed so jailrun(1)
 * can say what each did.
 *
 * Every token that passes is also shown to ttymodes.c, which keeps the
 * modes it leaves set (alternate screen, mouse, keyboard protocol...) so
 * that the runner can put them back at exit.
 */

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ttyfilter.h"

/* clang-format off */
const struct jr_tty_rule jr_ttyfilter_rules[] = {
	{ .kind = JR_TTY_OSC, .show = "OSC 0, 1, 2", .osc = { { 0, 2 } },
	  .reason = "set the window and icon titles: they are outside the pane and outlast the command, and read back with CSI 21 t a title was the classic way to type commands into the caller's shell" },
	{ .kind = JR_TTY_OSC, .show = "OSC 3", .osc = { { 3, 3 } },
	  .reason = "sets an X11 property of the terminal's window (xterm)" },
	{ .kind = JR_TTY_OSC, .show = "OSC 4, 5, 6, 104, 105, 106", .osc = { { 4, 6 }, { 104, 106 } },
	  .reason = "set, query or reset the colour palette of the whole terminal (the change outlasts the command; a query answers with host settings); OSC 6 colours iTerm2's tab" },
	{ .kind = JR_TTY_OSC, .show = "OSC 7", .osc = { { 7, 7 } },
	  .reason = "tells the terminal the current directory: new tabs and windows on the host open there" },
	{ .kind = JR_TTY_OSC, .show = "OSC 8", .osc = { { 8, 8 } },
	  .reason = "hyperlinks: the target is hidden behind the text, and a click opens it on the host with the caller's URL handlers (any scheme, file:// among them); the link text itself is kept" },
	{ .kind = JR_TTY_OSC, .show = "OSC 9", .osc = { { 9, 9 } },
	  .reason = "desktop notifications (iTerm2, Windows Terminal) and ConEmu's commands (OSC 9;6 runs GUI macros)" },
	{ .kind = JR_TTY_OSC, .show = "OSC 10-19, 110-119", .osc = { { 10, 19 }, { 110, 119 } },
	  .reason = "set, query or reset the dynamic colours (text, background, cursor, pointer, highlight) of the whole terminal" },
	{ .kind = JR_TTY_OSC, .show = "OSC 21", .osc = { { 21, 21 } },
	  .reason = "kitty's colour control: sets and reports colours" },
	{ .kind = JR_TTY_OSC, .show = "OSC 22", .osc = { { 22, 22 } },
	  .reason = "changes the mouse pointer's shape" },
	{ .kind = JR_TTY_OSC, .show = "OSC 46", .osc = { { 46, 46 } },
	  .reason = "changes xterm's log file, which the terminal writes on the host" },
	{ .kind = JR_TTY_OSC, .show = "OSC 50", .osc = { { 50, 50 } },
	  .reason = "sets and queries the font (xterm); CVE-2022-45063 ran code through it" },
	{ .kind = JR_TTY_OSC, .show = "OSC 51", .osc = { { 51, 51 } },
	  .reason = "reserved for Emacs: emacs-libvterm runs the commands it carries in the host's Emacs" },
	{ .kind = JR_TTY_OSC, .show = "OSC 52", .osc = { { 52, 52 } },
	  .reason = "writes the caller's clipboard, or reads it back into the command's input" },
	{ .kind = JR_TTY_OSC, .show = "OSC 99", .osc = { { 99, 99 } },
	  .reason = "kitty's desktop notifications" },
	{ .kind = JR_TTY_OSC, .show = "OSC 133, 633", .osc = { { 133, 133 }, { 633, 633 } },
	  .reason = "shell integration marks (FinalTerm, VS Code): tell the terminal where the host shell's prompts and commands are; VS Code records command lines from them" },
	{ .kind = JR_TTY_OSC, .show = "OSC 777", .osc = { { 777, 777 } },
	  .reason = "desktop notifications (urxvt, VTE, foot)" },
	{ .kind = JR_TTY_OSC, .show = "OSC 1337", .osc = { { 1337, 1337 } },
	  .reason = "iTerm2's commands: file downloads to the host, clipboard, user variables, profile changes" },
	{ .kind = JR_TTY_OSC, .show = "OSC 5113", .osc = { { 5113, 5113 } },
	  .reason = "kitty's file transfer: reads and writes files on the host" },
	{ .kind = JR_TTY_OSC, .show = "OSC 5522", .osc = { { 5522, 5522 } },
	  .reason = "kitty's clipboard protocol" },
	{ .kind = JR_TTY_OSC, .show = "OSC 30001, 30101", .osc = { { 30001, 30001 }, { 30101, 30101 } },
	  .reason = "kitty: push and pop the colour stack of the whole terminal" },
	{ .kind = JR_TTY_OSC, .show = "any other OSC",
	  .reason = "every OSC string is dropped: OSC is where terminals put their host-facing features, and a new one must not pass because this list did not know it" },
	{ .kind = JR_TTY_DCS, .show = "DCS (ESC P)",
	  .reason = "device control strings: DECRQSS and XTGETTCAP make the terminal answer into the input (an echoing DECRQSS was CVE-2008-2383), DECUDK reprograms keys, tmux and screen passthrough carry any sequence past the multiplexer to the terminal beneath; sixel images and soft fonts go with them" },
	{ .kind = JR_TTY_SOS, .show = "SOS (ESC X)",
	  .reason = "start of string: no use in a pane; some terminals show or act on the string" },
	{ .kind = JR_TTY_PM, .show = "PM (ESC ^)",
	  .reason = "privacy message: screen shows it in its status line" },
	{ .kind = JR_TTY_APC, .show = "APC (ESC _)",
	  .reason = "kitty's graphics protocol (it can read images from files on the host) and screen's status line" },
	{ .kind = JR_TTY_CSI, .show = "CSI ... t", .prefix = JR_TTY_ANY, .finals = "t", .param = JR_TTY_ANY,
	  .reason = "window operations (XTWINOPS, DECSLPP): move, resize, iconify or raise the window, or report its title into the input (title reports were CVE-2003-0063 and CVE-2024-38396)" },
	{ .kind = JR_TTY_CSI, .show = "CSI ... i", .prefix = JR_TTY_ANY, .finals = "i", .param = JR_TTY_ANY,
	  .reason = "media copy: prints on the host's printer; xterm pipes it into a shell command (printerCommand)" },
	{ .kind = JR_TTY_CSI, .show = "CSI 3 J", .prefix = 0, .inter = "", .finals = "J", .param = 3,
	  .reason = "erases the scrollback, with what was there before jailrun started; CSI 2 J still clears the screen" },
	{ .kind = JR_TTY_CSI, .show = "CSI ... * y", .prefix = JR_TTY_ANY, .inter = "*", .finals = "y", .param = JR_TTY_ANY,
	  .reason = "DECRQCRA: answers a checksum of any area of the screen, which reads the text on it, from before jailrun started too" },
	{ .kind = JR_TTY_CSI, .show = "CSI ... $ u", .prefix = JR_TTY_ANY, .inter = "$", .finals = "u", .param = JR_TTY_ANY,
	  .reason = "DECRQTSR: reports the terminal's whole state, the colour table among it" },
	{ .kind = JR_TTY_CSI, .show = "CSI ... $ |", .prefix = JR_TTY_ANY, .inter = "$", .finals = "|", .param = JR_TTY_ANY,
	  .reason = "DECSCPP: sets the columns per page, which resizes the window" },
	{ .kind = JR_TTY_CSI, .show = "CSI ... * |", .prefix = JR_TTY_ANY, .inter = "*", .finals = "|", .param = JR_TTY_ANY,
	  .reason = "DECSNLS: sets the lines per screen, which resizes the window" },
	{ .kind = JR_TTY_CSI, .show = "CSI ? 3 h, CSI ? 3 l", .prefix = '?', .inter = "", .finals = "hl", .param = 3,
	  .reason = "DECCOLM: 132 or 80 columns, which resizes the window" },
	{ .kind = JR_TTY_CSI, .show = "CSI ... # P, # Q, # R", .prefix = JR_TTY_ANY, .inter = "#", .finals = "PQR", .param = JR_TTY_ANY,
	  .reason = "XTPUSHCOLORS, XTPOPCOLORS, XTREPORTCOLORS: the palette stack of the whole terminal" },
	{ .kind = JR_TTY_ESC, .show = "ESC % ...", .inter = "%",
	  .reason = "DOCS: switches the terminal's character encoding; out of UTF-8, raw bytes 0x80-0x9f become controls this filter passed as text, and the switch outlasts the command" },
	{ .kind = JR_TTY_C0, .show = "ENQ (0x05)", .byte = 0x05,
	  .reason = "the terminal answers with its answerback message, a host setting, into the input" },
	{ .kind = JR_TTY_BAD, .show = "cut short, malformed or too long",
	  .reason = "a sequence cut by ESC, CAN, SUB or a non-ASCII byte, one a terminal ignores, or a CSI or ESC sequence over 256 bytes: dropped whole, so no part of it reaches the terminal" },
};
/* clang-format on */
const size_t jr_ttyfilter_rules_count =
    sizeof(jr_ttyfilter_rules) / sizeof(jr_ttyfilter_rules[0]);

_Static_assert(sizeof(jr_ttyfilter_rules) / sizeof(jr_ttyfilter_rules[0]) <=
		   JR_TTYFILTER_RULES_MAX,
	       "raise JR_TTYFILTER_RULES_MAX");

enum {
	ST_GROUND = 0,
	ST_ESC,	       /* after ESC: intermediates until a final */
	ST_CSI,	       /* after ESC [ or CSI: until a final 0x40-0x7e */
	ST_IGNORE_CSI, /* a CSI too long to keep: swallowed to its final */
	ST_IGNORE_ESC, /* the same for an ESC sequence */
	ST_STRING,     /* OSC, DCS, SOS, PM, APC: swallowed to ST */
};

#define ESC 0x1b
#define CAN 0x18
#define SUB 0x1a
#define BEL 0x07
#define DEL 0x7f
#define C1_ST 0x9c

static const uint8_t replacement[3] = { 0xef, 0xbf, 0xbd }; /* U+FFFD */

struct out {
	uint8_t *p;
	size_t n;
};

static void put(struct out *o, const void *b, size_t n)
{
	memcpy(o->p + o->n, b, n);
	o->n += n;
}

static void count(struct jr_ttyfilter *f, size_t rule)
{
	f->dropped[rule]++;
	f->dropped_total++;
}

/* The first rule of @kind (for C0: of that byte). Every kind has one. */
static size_t rule_of(enum jr_tty_kind kind, int byte)
{
	size_t i;

	for (i = 0; i < jr_ttyfilter_rules_count; i++)
		if (jr_ttyfilter_rules[i].kind == kind &&
		    (kind != JR_TTY_C0 || jr_ttyfilter_rules[i].byte == byte))
			break;
	return i;
}

static void count_kind(struct jr_ttyfilter *f, enum jr_tty_kind kind)
{
	count(f, rule_of(kind, 0));
}

static size_t osc_rule(long num)
{
	size_t i;

	for (i = 0; i < jr_ttyfilter_rules_count; i++) {
		const struct jr_tty_rule *r = &jr_ttyfilter_rules[i];
		bool any = true;

		if (r->kind != JR_TTY_OSC)
			continue;
		for (size_t k = 0; k < 3; k++) {
			if (r->osc[k][0] || r->osc[k][1])
				any = false;
			if ((r->osc[k][0] || r->osc[k][1]) &&
			    num >= r->osc[k][0] && num <= r->osc[k][1])
				return i;
		}
		if (any)
			return i; /* the catch-all, last of the OSC rules */
	}
	return rule_of(JR_TTY_BAD, 0);
}

/*
 * classify - which rule drops the complete sequence in f->seq, if any.
 * The introducer (ESC [, C2 9B, or ESC) ends at f->body. Control bytes
 * inside are skipped: the terminal executes them on the way.
 * Return: the rule's index, or -1 to let it pass.
 */
static long classify(const struct jr_ttyfilter *f, bool csi)
{
	int params[JR_TTYFILTER_SEQ_MAX];
	size_t np = 0, ni = 0, i;
	char inter[8];
	int prefix = 0, phase = 0; /* 0 start, 1 parameters, 2 intermediates */
	long cur = -1;
	uint8_t final = f->seq[f->seq_len - 1];

	for (i = f->body; i + 1 < f->seq_len; i++) {
		uint8_t c = f->seq[i];

		if (c < 0x20)
			continue;
		if (csi && c >= 0x3c && c <= 0x3f) {
			/* A private marker is only valid first (ECMA-48
			 * 5.4.1 note; xterm and VTE ignore it elsewhere). */
			if (phase != 0)
				return (long)rule_of(JR_TTY_BAD, 0);
			prefix = c;
			phase = 1;
		} else if (csi &&
			   ((c >= '0' && c <= '9') || c == ';' || c == ':')) {
			if (phase == 2)
				return (long)rule_of(JR_TTY_BAD, 0);
			phase = 1;
			if (c == ';' || c == ':') {
				params[np++] = cur < 0 ? -1 : (int)cur;
				cur = -1;
			} else {
				cur = (cur < 0 ? 0 : cur) * 10 + (c - '0');
				if (cur > 99999)
					cur = 99999;
			}
		} else {
			/* 0x20-0x2f: an intermediate. */
			if (ni == sizeof(inter) - 1)
				return (long)rule_of(JR_TTY_BAD, 0);
			inter[ni++] = (char)c;
			phase = 2;
		}
	}
	inter[ni] = '\0';
	if (csi)
		params[np++] = cur < 0 ? -1 : (int)cur;

	for (i = 0; i < jr_ttyfilter_rules_count; i++) {
		const struct jr_tty_rule *r = &jr_ttyfilter_rules[i];
		bool hit;

		if (r->kind != (csi ? JR_TTY_CSI : JR_TTY_ESC))
			continue;
		if (csi && r->prefix != JR_TTY_ANY && r->prefix != prefix)
			continue;
		if (r->inter && strcmp(r->inter, inter) != 0)
			continue;
		if (r->finals && !strchr(r->finals, final))
			continue;
		hit = !csi || r->param == JR_TTY_ANY;
		for (size_t k = 0; !hit && k < np; k++)
			hit = params[k] == r->param;
		if (hit)
			return (long)i;
	}
	return -1;
}

static void seq_start(struct jr_ttyfilter *f, const uint8_t *b, size_t n)
{
	memcpy(f->seq, b, n);
	f->seq_len = f->body = n;
}

static void string_start(struct jr_ttyfilter *f, enum jr_tty_kind kind)
{
	f->state = ST_STRING;
	f->str_kind = kind;
	f->str_len = 0;
	f->str_esc = false;
	f->osc_num = 0;
	f->osc_digits = 0;
	f->osc_num_done = false;
}

static void string_end(struct jr_ttyfilter *f)
{
	if (f->str_kind == JR_TTY_OSC)
		count(f, osc_rule(f->osc_digits > 0 && f->osc_digits <= 6
				      ? f->osc_num
				      : -1));
	else
		count_kind(f, f->str_kind);
	f->state = ST_GROUND;
}

/* The sequence introduced by ESC @e (or by the C1 control e + 0x40):
 * CSI and the strings start, anything else is complete. */
static bool introduce(struct jr_ttyfilter *f, uint8_t e)
{
	switch (e) {
	case '[':
		f->state = ST_CSI;
		f->body = f->seq_len;
		return true;
	case ']':
		string_start(f, JR_TTY_OSC);
		return true;
	case 'P':
		string_start(f, JR_TTY_DCS);
		return true;
	case 'X':
		string_start(f, JR_TTY_SOS);
		return true;
	case '^':
		string_start(f, JR_TTY_PM);
		return true;
	case '_':
		string_start(f, JR_TTY_APC);
		return true;
	}
	return false;
}

/* A whole UTF-8 character is in f->u8. */
static void char_done(struct jr_ttyfilter *f, struct out *o)
{
	size_t n = f->u8_len;

	f->u8_len = f->u8_need = 0;
	if (n == 2 && f->u8[0] == 0xc2 && f->u8[1] <= 0x9f) {
		/* U+0080-U+009F: a C1 control, the 8-bit form of ESC
		 * followed by the byte minus 0x40. */
		seq_start(f, f->u8, 2);
		if (!introduce(f, (uint8_t)(f->u8[1] - 0x40)))
			put(o, f->u8,
			    2); /* IND, NEL, HTS, RI, SS2...: pane-local */
		return;
	}
	if (f->c1_terminal)
		for (size_t i = 1; i < n; i++)
			switch (f->u8[i]) {
			case 0x90: /* DCS */
			case 0x98: /* SOS */
			case 0x9b: /* CSI */
			case 0x9d: /* OSC */
			case 0x9e: /* PM */
			case 0x9f: /* APC */
				put(o, replacement, sizeof(replacement));
				return;
			}
	put(o, f->u8, n);
}

static void ground(struct jr_ttyfilter *f, uint8_t b, struct out *o)
{
	if (f->u8_need) {
		if (b >= f->u8_lo && b <= f->u8_hi) {
			f->u8[f->u8_len++] = b;
			f->u8_lo = 0x80;
			f->u8_hi = 0xbf;
			if (f->u8_len == f->u8_need)
				char_done(f, o);
			return;
		}
		/* A maximal subpart of an ill-formed sequence: one U+FFFD
		 * (Unicode 15, 3.9 "U+FFFD Substitution of Maximal
		 * Subparts"); then @b starts afresh. */
		put(o, replacement, sizeof(replacement));
		f->u8_len = f->u8_need = 0;
	}
	if (b == ESC) {
		f->state = ST_ESC;
		seq_start(f, &b, 1);
		return;
	}
	if (b == 0x05) {
		count(f, rule_of(JR_TTY_C0, 0x05));
		return;
	}
	if (b < 0x80) {
		put(o, &b, 1);
		if (b < 0x20)
			jr_ttymodes_control(&f->modes, b); /* SO, SI */
		return;
	}
	/* Unicode 15, table 3-7: well-formed UTF-8 byte sequences. */
	f->u8_lo = 0x80;
	f->u8_hi = 0xbf;
	if (b >= 0xc2 && b <= 0xdf) {
		f->u8_need = 2;
	} else if (b >= 0xe0 && b <= 0xef) {
		f->u8_need = 3;
		if (b == 0xe0)
			f->u8_lo = 0xa0;
		else if (b == 0xed)
			f->u8_hi = 0x9f;
	} else if (b >= 0xf0 && b <= 0xf4) {
		f->u8_need = 4;
		if (b == 0xf0)
			f->u8_lo = 0x90;
		else if (b == 0xf4)
			f->u8_hi = 0x8f;
	} else {
		/* 0x80-0xc1, 0xf5-0xff: never valid first. A raw C1 lands
		 * here: U+FFFD, never a control. */
		put(o, replacement, sizeof(replacement));
		return;
	}
	f->u8[0] = b;
	f->u8_len = 1;
}

/*
 * Bytes every non-ground state treats alike. Return: 1 consumed, 0 not
 * handled here, -1 to process @b again in the (new) state.
 */
static int common(struct jr_ttyfilter *f, uint8_t b, struct out *o,
		  bool partial)
{
	if (b == ESC) {
		if (partial)
			count_kind(f, JR_TTY_BAD);
		f->state = ST_ESC;
		seq_start(f, &b, 1);
		return 1;
	}
	if (b == CAN || b == SUB) {
		/* They cancel the sequence, and the terminal executes them. */
		if (partial)
			count_kind(f, JR_TTY_BAD);
		put(o, &b, 1);
		f->state = ST_GROUND;
		return 1;
	}
	if (b == 0x05) {
		count(f, rule_of(JR_TTY_C0, 0x05));
		return 1;
	}
	if (b == DEL)
		return 1; /* ignored inside sequences */
	if (b >= 0x80) {
		if (partial)
			count_kind(f, JR_TTY_BAD);
		f->state = ST_GROUND;
		return -1;
	}
	return 0;
}

/* The sequence in f->seq is complete: write it or count its rule. */
static void complete(struct jr_ttyfilter *f, bool csi, struct out *o)
{
	long rule = classify(f, csi);

	if (rule < 0) {
		put(o, f->seq, f->seq_len);
		jr_ttymodes_seq(&f->modes, f->seq, f->seq_len, f->body, csi);
	} else
		count(f, (size_t)rule);
	f->state = ST_GROUND;
}

static bool seq_add(struct jr_ttyfilter *f, uint8_t b)
{
	if (f->seq_len == sizeof(f->seq))
		return false;
	f->seq[f->seq_len++] = b;
	return true;
}

static int esc(struct jr_ttyfilter *f, uint8_t b, struct out *o)
{
	int r = common(f, b, o, true);
	bool inter = false;

	if (r)
		return r;
	if (b < 0x30) {
		/* C0 (executed on the way) or an intermediate. */
		if (!seq_add(f, b)) {
			count_kind(f, JR_TTY_BAD);
			f->state = ST_IGNORE_ESC;
		}
		return 1;
	}
	for (size_t i = 1; i < f->seq_len; i++)
		inter |= f->seq[i] >= 0x20;
	if (!seq_add(f, b)) {
		count_kind(f, JR_TTY_BAD);
		f->state = ST_GROUND;
		return 1;
	}
	if (!inter && introduce(f, b))
		return 1;
	complete(f, false, o);
	return 1;
}

static int csi(struct jr_ttyfilter *f, uint8_t b, struct out *o)
{
	int r = common(f, b, o, true);

	if (r)
		return r;
	if (!seq_add(f, b)) {
		count_kind(f, JR_TTY_BAD);
		f->state = b >= 0x40 ? ST_GROUND : ST_IGNORE_CSI;
		return 1;
	}
	if (b >= 0x40)
		complete(f, true, o);
	return 1;
}

static int ignore(struct jr_ttyfilter *f, uint8_t b, struct out *o,
		  uint8_t first_final)
{
	int r = common(f, b, o, false);

	if (r)
		return r;
	if (b >= first_final)
		f->state = ST_GROUND;
	return 1;
}

static int string(struct jr_ttyfilter *f, uint8_t b)
{
	if (++f->str_len > JR_TTYFILTER_STRING_MAX) {
		/* Give up on the terminator. The terminal never saw the
		 * introducer, so what follows is text to it as to us. */
		string_end(f);
		return 1;
	}
	if (f->str_esc) {
		f->str_esc = false;
		string_end(f);
		if (b == '\\')
			return 1; /* ST */
		/* ESC and anything else ends the string and starts a new
		 * sequence (xterm, VTE, the Linux console). */
		f->state = ST_ESC;
		f->seq[0] = ESC;
		f->seq_len = f->body = 1;
		return -1;
	}
	/* ST is ESC \ or 0x9c (also the second byte of C2 9C, the UTF-8
	 * form); xterm also ends an OSC at BEL. */
	if ((b == BEL && f->str_kind == JR_TTY_OSC) || b == C1_ST || b == CAN ||
	    b == SUB) {
		string_end(f);
		return 1;
	}
	if (b == ESC)
		f->str_esc = true;
	if (f->str_kind == JR_TTY_OSC && !f->osc_num_done) {
		if (b >= '0' && b <= '9' && f->osc_digits < 7) {
			f->osc_num = f->osc_num * 10 + (b - '0');
			f->osc_digits++;
		} else {
			f->osc_num_done = true;
		}
	}
	return 1;
}

static void step(struct jr_ttyfilter *f, uint8_t b, struct out *o)
{
	int r = 1;

	do {
		switch (f->state) {
		case ST_ESC:
			r = esc(f, b, o);
			break;
		case ST_CSI:
			r = csi(f, b, o);
			break;
		case ST_IGNORE_CSI:
			r = ignore(f, b, o, 0x40);
			break;
		case ST_IGNORE_ESC:
			r = ignore(f, b, o, 0x30);
			break;
		case ST_STRING:
			r = string(f, b);
			break;
		default:
			ground(f, b, o);
			r = 1;
			break;
		}
	} while (r < 0);
}

void jr_ttyfilter_init(struct jr_ttyfilter *f, bool c1_terminal)
{
	memset(f, 0, sizeof(*f));
	f->state = ST_GROUND;
	f->c1_terminal = c1_terminal;
	jr_ttymodes_init(&f->modes);
}

size_t jr_ttyfilter_feed(struct jr_ttyfilter *f, const uint8_t *in, size_t n,
			 uint8_t *out)
{
	struct out o = { .p = out, .n = 0 };

	for (size_t i = 0; i < n; i++)
		step(f, in[i], &o);
	return o.n;
}

static bool names_utf8(const char *s)
{
	for (; *s; s++)
		if (!strncasecmp(s, "utf-8", 5) || !strncasecmp(s, "utf8", 4))
			return true;
	return false;
}

bool jr_ttyfilter_locale_utf8(const char *lc_all, const char *lc_ctype,
			      const char *lang)
{
	const char *v[] = { lc_all, lc_ctype, lang };

	for (size_t i = 0; i < 3; i++)
		if (v[i] && *v[i])
			return names_utf8(v[i]);
	return false;
}

uint64_t jr_ttyfilter_describe(const struct jr_ttyfilter *f, char *buf,
			       size_t len)
{
	const char *sep = "";
	size_t off = 0;

	if (!len)
		return f->dropped_total;
	buf[0] = '\0';
	for (size_t i = 0; i < jr_ttyfilter_rules_count && off < len; i++) {
		if (!f->dropped[i])
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s (%llu)",
					sep, jr_ttyfilter_rules[i].show,
					(unsigned long long)f->dropped[i]);
		sep = ", ";
	}
	return f->dropped_total;
}
