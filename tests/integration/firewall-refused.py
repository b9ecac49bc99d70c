#!/usr/bin/env python3
"""firewall-refused.py - the probe of tests/integration/firewall-refused.sh.

Run inside the sandbox. Tries what a tool that ignores the proxy would,
each exactly once, so each is exactly one packet for the firewall:

  tcp ADDR PORT   one connect (one SYN: a reset answers it, no retransmit)
  udp ADDR PORT   one datagram
  flood ADDR PORT N   N datagrams

and prints "refused PROTO ADDR PORT" for each the firewall refused (TCP:
ECONNREFUSED, UDP: EPERM, the NF_DROP of a local send) or "other ..."
with the error otherwise. Arguments come in groups: tcp 1.2.3.4 80 udp ...
"""
import errno
import socket
import sys


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def tcp(addr, port):
    s = socket.socket(family(addr), socket.SOCK_STREAM)
    s.settimeout(30)
    try:
        s.connect((addr, port))
        return "connected"
    except OSError as e:
        return "refused" if e.errno == errno.ECONNREFUSED else "other %s" % e
    finally:
        s.close()


def udp(addr, port):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    try:
        s.sendto(b"jailrun-firewall-refused-probe", (addr, port))
        return "sent"
    except OSError as e:
        return "refused" if e.errno == errno.EPERM else "other %s" % e
    finally:
        s.close()


def main(argv):
    i = 0
    while i < len(argv):
        kind = argv[i]
        addr, port = argv[i + 1], int(argv[i + 2])
        i += 3
        if kind == "flood":
            n = int(argv[i])
            i += 1
            got = [udp(addr, port) for _ in range(n)]
            print("flood %d refused of %d" % (got.count("refused"), n))
            continue
        verdict = tcp(addr, port) if kind == "tcp" else udp(addr, port)
        print("%s %s %s %d" % (verdict, kind, addr, port), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
