// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_sock.c - the AF_MRC socket family: socket(), bind(), getsockname(),
 * close().
 *
 * The connection-oriented calls (connect, listen, accept, sendmsg, recvmsg,
 * poll, shutdown) answer EOPNOTSUPP until the datapath lands; see
 * Documentation/networking/mrc-socket.rst for what each returns today.
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <net/ipv6.h>

#include "mrc_impl.h"

static struct proto mrc_proto = {
	.name	  = "MRC",
	.owner	  = THIS_MODULE,
	.obj_size = sizeof(struct mrc_sock),
};

static bool mrc_port_taken(struct mrc_net *mn, u16 port, const struct in6_addr *addr)
{
	struct mrc_sock *other;

	hash_for_each_possible(mn->bind_hash, other, bind_node, port) {
		const struct in6_addr *oaddr = (const struct in6_addr *)other->local.smrc_addr;

		if (ntohs(other->local.smrc_port) != port)
			continue;
		if (ipv6_addr_any(addr) || ipv6_addr_any(oaddr) || ipv6_addr_equal(addr, oaddr))
			return true;
	}
	return false;
}

/* Pick a free ephemeral service id; called with mn->bind_lock held. */
static u16 mrc_port_pick(struct mrc_net *mn, const struct in6_addr *addr)
{
	u32 range = MRC_PORT_EPHEMERAL_MAX - MRC_PORT_EPHEMERAL_MIN + 1;
	u32 i;

	for (i = 0; i < range; i++) {
		u16 port = mn->next_port;

		mn->next_port = port >= MRC_PORT_EPHEMERAL_MAX ?
				MRC_PORT_EPHEMERAL_MIN : port + 1;
		if (!mrc_port_taken(mn, port, addr))
			return port;
	}
	return 0;
}

/* Is @addr usable as a local address of @net? Link-local needs its device. */
static int mrc_check_local_addr(struct net *net, const struct in6_addr *addr, u32 scope_id)
{
	struct net_device *dev = NULL;
	int ok;

	if (ipv6_addr_any(addr))
		return scope_id ? -EINVAL : 0;
	if (ipv6_addr_type(addr) & IPV6_ADDR_MULTICAST)
		return -EADDRNOTAVAIL;

	rcu_read_lock();
	if (scope_id) {
		dev = dev_get_by_index_rcu(net, scope_id);
		if (!dev) {
			rcu_read_unlock();
			return -ENODEV;
		}
	} else if (ipv6_addr_type(addr) & IPV6_ADDR_LINKLOCAL) {
		rcu_read_unlock();
		return -EINVAL;
	}
	ok = ipv6_chk_addr(net, addr, dev, 0);
	rcu_read_unlock();
	return ok ? 0 : -EADDRNOTAVAIL;
}

static int mrc_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_net *mn = mrc_net(sock_net(sk));
	const struct in6_addr *addr;
	struct sockaddr_mrc sa;
	u16 port;
	int err;

	if (addr_len < (int)sizeof(sa)) {
		mrc_net_count(mn, MRC_CNT_BAD_ADDR);
		return -EINVAL;
	}
	memcpy(&sa, uaddr, sizeof(sa));
	if (sa.smrc_family != mrc_family) {
		mrc_net_count(mn, MRC_CNT_BAD_ADDR);
		return -EAFNOSUPPORT;
	}
	if (sa.smrc_flags || sa.smrc_reserved) {
		mrc_net_count(mn, MRC_CNT_BAD_ADDR);
		return -EINVAL;
	}
	addr = (const struct in6_addr *)sa.smrc_addr;
	err = mrc_check_local_addr(sock_net(sk), addr, sa.smrc_scope_id);
	if (err) {
		mrc_net_count(mn, err == -EADDRNOTAVAIL || err == -ENODEV ?
			      MRC_CNT_ADDR_NOTAVAIL : MRC_CNT_BAD_ADDR);
		return err;
	}

	lock_sock(sk);
	if (ms->bound) {
		err = -EINVAL;
		mrc_net_count(mn, MRC_CNT_BAD_ADDR);
		goto out;
	}
	spin_lock_bh(&mn->bind_lock);
	port = ntohs(sa.smrc_port);
	if (!port) {
		port = mrc_port_pick(mn, addr);
		if (!port)
			err = -EADDRINUSE;
	} else if (mrc_port_taken(mn, port, addr)) {
		err = -EADDRINUSE;
	}
	if (!err) {
		sa.smrc_port = htons(port);
		ms->local = sa;
		ms->bound = true;
		hash_add_rcu(mn->bind_hash, &ms->bind_node, port);
		mn->nbound++;
	}
	spin_unlock_bh(&mn->bind_lock);
	mrc_net_count(mn, err ? MRC_CNT_ADDR_INUSE : MRC_CNT_BIND_OK);
out:
	release_sock(sk);
	return err;
}

static int mrc_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct sockaddr_mrc sa;

	if (peer)
		return -ENOTCONN;
	lock_sock(sk);
	if (ms->bound) {
		sa = ms->local;
	} else {
		memset(&sa, 0, sizeof(sa));
		sa.smrc_family = mrc_family;
	}
	release_sock(sk);
	memcpy(uaddr, &sa, sizeof(sa));
	return sizeof(sa);
}

static void mrc_unhash(struct sock *sk)
{
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_net *mn = mrc_net(sock_net(sk));

	spin_lock_bh(&mn->bind_lock);
	if (ms->bound) {
		hash_del_rcu(&ms->bind_node);
		ms->bound = false;
		mn->nbound--;
	}
	spin_unlock_bh(&mn->bind_lock);
}

static int mrc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct mrc_net *mn;

	if (!sk)
		return 0;
	mn = mrc_net(sock_net(sk));

	lock_sock(sk);
	mrc_unhash(sk);
	sock_orphan(sk);
	release_sock(sk);

	atomic_dec(&mn->nsocks);
	mrc_net_count(mn, MRC_CNT_SOCK_RELEASED);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

/*
 * proto_ops.family is informational (the core registers and looks families up
 * through struct net_proto_family), so the const table names the default
 * number even when the module was loaded with another one.
 */
static const struct proto_ops mrc_proto_ops = {
	.family		= AF_MRC_DEFAULT,
	.owner		= THIS_MODULE,
	.release	= mrc_release,
	.bind		= mrc_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= mrc_getname,
	.poll		= datagram_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.sendmsg	= sock_no_sendmsg,
	.recvmsg	= sock_no_recvmsg,
	.mmap		= sock_no_mmap,
	.sendpage	= sock_no_sendpage,
};

static int mrc_create(struct net *net, struct socket *sock, int protocol, int kern)
{
	struct mrc_net *mn = mrc_net(net);
	struct sock *sk;

	if (sock->type != SOCK_SEQPACKET) {
		mrc_net_count(mn, MRC_CNT_BAD_SOCKET);
		return -ESOCKTNOSUPPORT;
	}
	if (protocol != MRC_PROTO_DEFAULT) {
		mrc_net_count(mn, MRC_CNT_BAD_SOCKET);
		return -EPROTONOSUPPORT;
	}

	sk = sk_alloc(net, mrc_family, GFP_KERNEL, &mrc_proto, kern);
	if (!sk)
		return -ENOBUFS;

	sock->ops = &mrc_proto_ops;
	sock->state = SS_UNCONNECTED;
	sock_init_data(sock, sk);
	sk->sk_protocol = protocol;
	/* Receive-path lookups will walk the bind hash under RCU only. */
	sock_set_flag(sk, SOCK_RCU_FREE);

	atomic_inc(&mn->nsocks);
	mrc_net_count(mn, MRC_CNT_SOCK_CREATED);
	return 0;
}

/* Not const: the family number is a load-time module parameter. */
static struct net_proto_family mrc_family_ops = {
	.create	= mrc_create,
	.owner	= THIS_MODULE,
};

/**
 * mrc_sock_init_module() - register struct proto and the AF_MRC family
 *
 * Return: 0, or a negative errno with everything registered so far undone.
 * -EEXIST means another protocol owns the family number.
 */
int mrc_sock_init_module(void)
{
	int err;

	err = proto_register(&mrc_proto, 1);
	if (err)
		return err;

	mrc_family_ops.family = mrc_family;
	err = sock_register(&mrc_family_ops);
	if (err) {
		if (err == -EEXIST)
			pr_err("address family %d is already registered; load with family=<free slot>\n",
			       mrc_family);
		proto_unregister(&mrc_proto);
		return err;
	}
	return 0;
}

/**
 * mrc_sock_exit_module() - unregister the family; no socket can be alive
 * (each holds a module reference)
 */
void mrc_sock_exit_module(void)
{
	sock_unregister(mrc_family);
	proto_unregister(&mrc_proto);
}
