/**
 * Harnesses for Tern's own tests that run real external programs: a DNS server ({@link
 * dev.tern.testtools.Dnsmasq}, with the {@link dev.tern.testtools.DnsLookup} client), an
 * OpenTelemetry Collector and Prometheus ({@link dev.tern.testtools.OtelCollector}, {@link
 * dev.tern.testtools.PrometheusServer}), tools found or skipped by {@link
 * dev.tern.testtools.ExternalTool}, and {@link dev.tern.testtools.ProgramRun} for the programs'
 * command lines. Not published; users' test kit is tern-testing.
 */
package dev.tern.testtools;
