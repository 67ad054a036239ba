/**
 * The Tern console ({@code dev.tern.console.TernConsole}): a page on a Netty server's own port that
 * shows and calls the server's services. Its one package is the API; the page's assets sit in the
 * jar under it and are read by this module only.
 */
module dev.tern.console {
  // The web protocols the page calls through, and with them tern-netty's HTTP seam
  // (dev.tern.netty.http) that serves the page, NettyServerBuilder (in TernConsole's API),
  // tern-core
  // and Netty's HTTP headers.
  requires transitive dev.tern.web;
  // The log's warning when the console is opened beyond loopback without an authenticator.
  requires java.logging;

  exports dev.tern.console;
}
