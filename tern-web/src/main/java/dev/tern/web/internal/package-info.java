/** The machinery of tern-web's protocols. Not API: may change at any time. */
package dev.tern.web.internal;
