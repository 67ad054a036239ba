/**
 * Ready-made helpers built on the public API, such as {@link dev.tern.util.MutableHandlerRegistry}
 * for servers whose services change at run time.
 */
package dev.tern.util;
