/** The app. */
package dev.tern.app;
