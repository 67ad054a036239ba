/**
 * tern-xds's part of the admin services. Not API.
 *
 * <p>One room: {@link dev.tern.xds.internal.admin.CsdsAdminServiceProvider}, listed in {@code
 * META-INF/services}, through which tern-services' {@code AdminServices} finds the Client Status
 * Discovery Service ({@code dev.tern.xds.CsdsService}, A40) and adds it to its standard set.
 *
 * <p>Threads: stateless; called once per {@code getStandardServices()}, on the caller's thread.
 *
 * <p>Uses the API, tern-services' provider interface and {@code dev.tern.xds}.
 */
package dev.tern.xds.internal.admin;
