/**
 * Security from the control plane (A29): the bootstrap's certificate provider instances (the {@code
 * file_watcher} plugin), shared by every server and channel of the process that names them, and the
 * key and trust managers built on them.
 */
package dev.tern.xds.internal.security;
