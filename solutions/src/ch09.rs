//! Chapter 9: parallel histogram.
