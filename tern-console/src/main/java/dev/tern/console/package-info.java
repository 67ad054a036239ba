/**
 * The Tern console ({@link dev.tern.console.TernConsole}): a page in the browser on a Netty
 * server's own port that shows and calls every service the server's reflection describes, and shows
 * its health and channelz. See docs/console.md.
 */
package dev.tern.console;
