/**
 * Count-min sketches, in memory and larger than RAM.
 *
 * <ul>
 *   <li>{@link io.varve.bcms.CountMinSketch}: the plain sketch of Cormode and Muthukrishnan, on the
 *       heap or on a memory-mapped file; {@code depth} rows of {@code width} counters, one counter
 *       per row per update. On a file larger than RAM each update and estimate touches up to
 *       {@code depth} random pages.
 *   <li>{@link io.varve.bcms.BufferedCountMinSketch}: the Buffered Count-Min Sketch (Eydi, Medjedovic,
 *       Mekić, Selimović, ESA 2018): the counters are cut into pages, all of an item's counters lie
 *       in one page chosen by a separate hash, and updates wait in a per-page buffer in RAM until a
 *       page's buffer is full. An estimate reads one page; an update costs a fraction of a page
 *       read and write.
 * </ul>
 *
 * Both are configured by {@link io.varve.bcms.SketchParameters} and stored in the file format of
 * {@link io.varve.bcms.SketchFile}.
 */
package io.varve.bcms;
