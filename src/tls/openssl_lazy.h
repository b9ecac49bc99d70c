/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * openssl_lazy.h - OpenSSL is loaded only when TLS inspection starts.
 *
 * jailrun is not linked against libssl/libcrypto: loading libcrypto at
 * every start (4.7 MB, some 20,000 relocations, about 100 pages written
 * before main()) was most of what `jailrun --version` cost, and most
 * runs never inspect. tls_inspect.c and tls_sessions.c (the session
 * cache it owns), the only files that call OpenSSL, include this header
 * after OpenSSL's own: every function they call is then a call through a
 * pointer that jr_openssl_load() fills with dlsym() from
 * libssl.so.<OPENSSL_SHLIB_VERSION> (and the libcrypto it needs).
 * OpenSSL's headers still give every type and prototype, so the calls
 * are type-checked as before.
 *
 * A new OpenSSL function used in either is one line in JR_OPENSSL_FUNCS
 * and one #define below; without them the link fails with "undefined
 * reference" (jailrun is not linked against OpenSSL), never at run time.
 */
#ifndef JR_OPENSSL_LAZY_H
#define JR_OPENSSL_LAZY_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "err.h"

/* Every OpenSSL function jailrun calls, in alphabetical order. */
#define JR_OPENSSL_FUNCS(X)                                                    \
	X(BIO_clear_flags)                                                     \
	X(BIO_copy_next_retry)                                                 \
	X(BIO_ctrl)                                                            \
	X(BIO_free)                                                            \
	X(BIO_get_data)                                                        \
	X(BIO_get_new_index)                                                   \
	X(BIO_meth_free)                                                       \
	X(BIO_meth_new)                                                        \
	X(BIO_meth_set_ctrl)                                                   \
	X(BIO_meth_set_destroy)                                                \
	X(BIO_meth_set_read_ex)                                                \
	X(BIO_meth_set_write_ex)                                               \
	X(BIO_new)                                                             \
	X(BIO_new_socket)                                                      \
	X(BIO_next)                                                            \
	X(BIO_push)                                                            \
	X(BIO_read_ex)                                                         \
	X(BIO_s_mem)                                                           \
	X(BIO_set_data)                                                        \
	X(BIO_set_init)                                                        \
	X(BIO_write_ex)                                                        \
	X(BN_bin2bn)                                                           \
	X(BN_free)                                                             \
	X(BN_to_ASN1_INTEGER)                                                  \
	X(ERR_clear_error)                                                     \
	X(ERR_get_error)                                                       \
	X(ERR_peek_last_error)                                                 \
	X(ERR_reason_error_string)                                             \
	X(EVP_PKEY_Q_keygen)                                                   \
	X(EVP_PKEY_free)                                                       \
	X(EVP_sha256)                                                          \
	X(OPENSSL_thread_stop)                                                 \
	X(PEM_write_bio_X509)                                                  \
	X(RAND_bytes)                                                          \
	X(SSL_CTX_ctrl)                                                        \
	X(SSL_CTX_free)                                                        \
	X(SSL_CTX_load_verify_file)                                            \
	X(SSL_CTX_new)                                                         \
	X(SSL_CTX_sess_set_new_cb)                                             \
	X(SSL_CTX_set_alpn_protos)                                             \
	X(SSL_CTX_set_alpn_select_cb)                                          \
	X(SSL_CTX_set_default_verify_paths)                                    \
	X(SSL_CTX_set_num_tickets)                                             \
	X(SSL_CTX_set_options)                                                 \
	X(SSL_CTX_set_verify)                                                  \
	X(SSL_SESSION_free)                                                    \
	X(SSL_SESSION_get_protocol_version)                                    \
	X(SSL_SESSION_get_time)                                                \
	X(SSL_SESSION_get_timeout)                                             \
	X(SSL_SESSION_is_resumable)                                            \
	X(SSL_SESSION_up_ref)                                                  \
	X(SSL_accept)                                                          \
	X(SSL_connect)                                                         \
	X(SSL_ctrl)                                                            \
	X(SSL_free)                                                            \
	X(SSL_get0_param)                                                      \
	X(SSL_get0_peer_certificate)                                           \
	X(SSL_get_error)                                                       \
	X(SSL_get_ex_data)                                                     \
	X(SSL_get_servername)                                                  \
	X(SSL_get_verify_result)                                               \
	X(SSL_is_init_finished)                                                \
	X(SSL_new)                                                             \
	X(SSL_read_ex)                                                         \
	X(SSL_select_next_proto)                                               \
	X(SSL_session_reused)                                                  \
	X(SSL_set1_host)                                                       \
	X(SSL_set_bio)                                                         \
	X(SSL_set_ex_data)                                                     \
	X(SSL_set_fd)                                                          \
	X(SSL_set_session)                                                     \
	X(SSL_shutdown)                                                        \
	X(SSL_use_PrivateKey)                                                  \
	X(SSL_use_certificate)                                                 \
	X(SSL_write_ex)                                                        \
	X(TLS_client_method)                                                   \
	X(TLS_server_method)                                                   \
	X(X509V3_EXT_conf_nid)                                                 \
	X(X509V3_set_ctx)                                                      \
	X(X509_EXTENSION_free)                                                 \
	X(X509_NAME_add_entry_by_txt)                                          \
	X(X509_VERIFY_PARAM_set1_ip_asc)                                       \
	X(X509_add_ext)                                                        \
	X(X509_check_host)                                                     \
	X(X509_check_ip_asc)                                                   \
	X(X509_free)                                                           \
	X(X509_get_serialNumber)                                               \
	X(X509_get_subject_name)                                               \
	X(X509_getm_notAfter)                                                  \
	X(X509_getm_notBefore)                                                 \
	X(X509_new)                                                            \
	X(X509_set_issuer_name)                                                \
	X(X509_set_pubkey)                                                     \
	X(X509_set_version)                                                    \
	X(X509_sign)                                                           \
	X(X509_time_adj_ex)                                                    \
	X(X509_up_ref)                                                         \
	X(X509_verify_cert_error_string)

struct jr_openssl_funcs {
#define JR_OPENSSL_PTR(name) __typeof__(name) *name;
	JR_OPENSSL_FUNCS(JR_OPENSSL_PTR)
#undef JR_OPENSSL_PTR
};

/* Filled by jr_openssl_load(); read-only afterwards. */
extern struct jr_openssl_funcs jr_openssl;

/*
 * jr_openssl_load - load libssl and resolve every function in
 * JR_OPENSSL_FUNCS, once per process (later calls return the first
 * result). Safe to call from several threads.
 * Return: 0, or -ELIBACC with @err naming the library or function that
 * is missing and the package to install.
 */
int jr_openssl_load(struct jr_err *err);

/* From here on in the including file, each name is the loaded pointer. */
#ifndef JR_OPENSSL_LAZY_IMPL
#define BIO_clear_flags (jr_openssl.BIO_clear_flags)
#define BIO_copy_next_retry (jr_openssl.BIO_copy_next_retry)
#define BIO_ctrl (jr_openssl.BIO_ctrl)
#define BIO_free (jr_openssl.BIO_free)
#define BIO_get_data (jr_openssl.BIO_get_data)
#define BIO_get_new_index (jr_openssl.BIO_get_new_index)
#define BIO_meth_free (jr_openssl.BIO_meth_free)
#define BIO_meth_new (jr_openssl.BIO_meth_new)
#define BIO_meth_set_ctrl (jr_openssl.BIO_meth_set_ctrl)
#define BIO_meth_set_destroy (jr_openssl.BIO_meth_set_destroy)
#define BIO_meth_set_read_ex (jr_openssl.BIO_meth_set_read_ex)
#define BIO_meth_set_write_ex (jr_openssl.BIO_meth_set_write_ex)
#define BIO_new (jr_openssl.BIO_new)
#define BIO_new_socket (jr_openssl.BIO_new_socket)
#define BIO_next (jr_openssl.BIO_next)
#define BIO_push (jr_openssl.BIO_push)
#define BIO_read_ex (jr_openssl.BIO_read_ex)
#define BIO_s_mem (jr_openssl.BIO_s_mem)
#define BIO_set_data (jr_openssl.BIO_set_data)
#define BIO_set_init (jr_openssl.BIO_set_init)
#define BIO_write_ex (jr_openssl.BIO_write_ex)
#define BN_bin2bn (jr_openssl.BN_bin2bn)
#define BN_free (jr_openssl.BN_free)
#define BN_to_ASN1_INTEGER (jr_openssl.BN_to_ASN1_INTEGER)
#define ERR_clear_error (jr_openssl.ERR_clear_error)
#define ERR_get_error (jr_openssl.ERR_get_error)
#define ERR_peek_last_error (jr_openssl.ERR_peek_last_error)
#define ERR_reason_error_string (jr_openssl.ERR_reason_error_string)
#define EVP_PKEY_Q_keygen (jr_openssl.EVP_PKEY_Q_keygen)
#define EVP_PKEY_free (jr_openssl.EVP_PKEY_free)
#define EVP_sha256 (jr_openssl.EVP_sha256)
#define OPENSSL_thread_stop (jr_openssl.OPENSSL_thread_stop)
#define PEM_write_bio_X509 (jr_openssl.PEM_write_bio_X509)
#define RAND_bytes (jr_openssl.RAND_bytes)
#define SSL_CTX_ctrl (jr_openssl.SSL_CTX_ctrl)
#define SSL_CTX_free (jr_openssl.SSL_CTX_free)
#define SSL_CTX_load_verify_file (jr_openssl.SSL_CTX_load_verify_file)
#define SSL_CTX_new (jr_openssl.SSL_CTX_new)
#define SSL_CTX_sess_set_new_cb (jr_openssl.SSL_CTX_sess_set_new_cb)
#define SSL_CTX_set_alpn_protos (jr_openssl.SSL_CTX_set_alpn_protos)
#define SSL_CTX_set_alpn_select_cb (jr_openssl.SSL_CTX_set_alpn_select_cb)
#define SSL_CTX_set_default_verify_paths                                       \
	(jr_openssl.SSL_CTX_set_default_verify_paths)
#define SSL_CTX_set_num_tickets (jr_openssl.SSL_CTX_set_num_tickets)
#define SSL_CTX_set_options (jr_openssl.SSL_CTX_set_options)
#define SSL_CTX_set_verify (jr_openssl.SSL_CTX_set_verify)
#define SSL_SESSION_free (jr_openssl.SSL_SESSION_free)
#define SSL_SESSION_get_protocol_version                                       \
	(jr_openssl.SSL_SESSION_get_protocol_version)
#define SSL_SESSION_get_time (jr_openssl.SSL_SESSION_get_time)
#define SSL_SESSION_get_timeout (jr_openssl.SSL_SESSION_get_timeout)
#define SSL_SESSION_is_resumable (jr_openssl.SSL_SESSION_is_resumable)
#define SSL_SESSION_up_ref (jr_openssl.SSL_SESSION_up_ref)
#define SSL_accept (jr_openssl.SSL_accept)
#define SSL_connect (jr_openssl.SSL_connect)
#define SSL_ctrl (jr_openssl.SSL_ctrl)
#define SSL_free (jr_openssl.SSL_free)
#define SSL_get0_param (jr_openssl.SSL_get0_param)
#define SSL_get0_peer_certificate (jr_openssl.SSL_get0_peer_certificate)
#define SSL_get_error (jr_openssl.SSL_get_error)
#define SSL_get_ex_data (jr_openssl.SSL_get_ex_data)
#define SSL_get_servername (jr_openssl.SSL_get_servername)
#define SSL_get_verify_result (jr_openssl.SSL_get_verify_result)
#define SSL_is_init_finished (jr_openssl.SSL_is_init_finished)
#define SSL_new (jr_openssl.SSL_new)
#define SSL_read_ex (jr_openssl.SSL_read_ex)
#define SSL_select_next_proto (jr_openssl.SSL_select_next_proto)
#define SSL_session_reused (jr_openssl.SSL_session_reused)
#define SSL_set1_host (jr_openssl.SSL_set1_host)
#define SSL_set_bio (jr_openssl.SSL_set_bio)
#define SSL_set_ex_data (jr_openssl.SSL_set_ex_data)
#define SSL_set_fd (jr_openssl.SSL_set_fd)
#define SSL_set_session (jr_openssl.SSL_set_session)
#define SSL_shutdown (jr_openssl.SSL_shutdown)
#define SSL_use_PrivateKey (jr_openssl.SSL_use_PrivateKey)
#define SSL_use_certificate (jr_openssl.SSL_use_certificate)
#define SSL_write_ex (jr_openssl.SSL_write_ex)
#define TLS_client_method (jr_openssl.TLS_client_method)
#define TLS_server_method (jr_openssl.TLS_server_method)
#define X509V3_EXT_conf_nid (jr_openssl.X509V3_EXT_conf_nid)
#define X509V3_set_ctx (jr_openssl.X509V3_set_ctx)
#define X509_EXTENSION_free (jr_openssl.X509_EXTENSION_free)
#define X509_NAME_add_entry_by_txt (jr_openssl.X509_NAME_add_entry_by_txt)
#define X509_VERIFY_PARAM_set1_ip_asc (jr_openssl.X509_VERIFY_PARAM_set1_ip_asc)
#define X509_add_ext (jr_openssl.X509_add_ext)
#define X509_check_host (jr_openssl.X509_check_host)
#define X509_check_ip_asc (jr_openssl.X509_check_ip_asc)
#define X509_free (jr_openssl.X509_free)
#define X509_get_serialNumber (jr_openssl.X509_get_serialNumber)
#define X509_get_subject_name (jr_openssl.X509_get_subject_name)
#define X509_getm_notAfter (jr_openssl.X509_getm_notAfter)
#define X509_getm_notBefore (jr_openssl.X509_getm_notBefore)
#define X509_new (jr_openssl.X509_new)
#define X509_set_issuer_name (jr_openssl.X509_set_issuer_name)
#define X509_set_pubkey (jr_openssl.X509_set_pubkey)
#define X509_set_version (jr_openssl.X509_set_version)
#define X509_sign (jr_openssl.X509_sign)
#define X509_time_adj_ex (jr_openssl.X509_time_adj_ex)
#define X509_up_ref (jr_openssl.X509_up_ref)
#define X509_verify_cert_error_string (jr_openssl.X509_verify_cert_error_string)
#endif

#endif
