/** The API. */
package dev.tern;
