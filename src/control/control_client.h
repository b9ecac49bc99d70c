/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control_client.h - `jailrun ctl`, the command-line client of the live
 * policy socket (jailrun(1), LIVE POLICY CHANGES).
 */
#ifndef JR_CONTROL_CLIENT_H
#define JR_CONTROL_CLIENT_H

/*
 * jr_control_client_main - run `jailrun ctl PATH OP [ARGS]`.
 * @argc/@argv: from "ctl" on (argv[0] is "ctl")
 * Prints the answer line on stdout.
 * Return: the exit status: 0 the answer says ok, 1 it is an error answer,
 * 125 no answer (usage, cannot connect, connection lost, no answer in
 * time), with a message on stderr.
 */
int jr_control_client_main(int argc, char **argv);

#endif
