/** Test aids. */
package dev.tern.testing;
