/**
 * tern-xds's part of the admin services: the provider through which tern-services' {@code
 * AdminServices} finds the Client Status Discovery Service. Called once per {@code
 * getStandardServices()}, on the caller's thread.
 */
package dev.tern.xds.internal.admin;
