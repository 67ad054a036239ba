/** gRPC-Web and the Connect protocol on a Tern server's port: {@link dev.tern.web.WebProtocols}. */
package dev.tern.web;
