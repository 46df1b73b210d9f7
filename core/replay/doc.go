// Package replay implements prioritized experience replay (Schaul et al.,
// 2016) on the K-ary sum tree of package sumtree, safe for many actors and
// learners at once, as seeds 002 and 000 describe it.
//
// # What it computes
//
// A Buffer holds up to Capacity transitions of fixed shape (observation,
// action, reward, next observation, terminated, truncated), struct of
// arrays, replacing the oldest when full (000 §II-A3). Each stored
// transition i has a priority p_i > 0; new transitions get the largest
// priority currently stored (1 in an empty buffer). Sample draws i with
//
//	Pr(i) = p_i^alpha / sum_k p_k^alpha
//
// through the sum tree's prefix-sum search (002 §IV-A2), and gives each
// sample the importance weight
//
//	w_i = (N Pr(i))^-beta / max_j (N Pr(j))^-beta = (p_min / p_i)^(alpha beta),
//
// the maximum taken exactly over every stored transition: the buffer tracks
// the smallest stored priority in a min/max tree. After a learner step,
// Update sets the sampled transitions' priorities to |TD error| + eps. It
// takes the whole batch that this buffer's Sample filled, which records the
// buffer and each slot's generation; a view (Batch.View), a batch made by
// hand or one from another buffer is an error, found before any lock is
// taken. SetBeta and Anneal move beta towards 1 over training.
//
// # Concurrency (002 §IV-D)
//
// The two-lock scheme of 002 Algorithm 3: a last-level lock guards the tree's
// leaves, a tree lock everything above. A priority update holds the tree
// lock, takes the last-level lock only while it writes the leaves, and
// recomputes the upper levels after releasing it, so a priority retrieval
// (Priorities) never waits for them. Samplers share the tree lock (it is a
// readers-writer lock), so learners sample in parallel. GlobalLock replaces
// all of this with one mutex, the baseline of 002 §VI-D.
//
// Insertion uses lazy writing (002 §IV-D2): a slot's priority is set to 0,
// the transition is copied without any lock, and the priority is then raised
// to the maximum. A slot of priority 0 is never sampled, so no sample sees a
// half-written transition. Each slot counts its writes; Update drops the
// priority of a slot rewritten since it was sampled.
//
// # Relaxed dependency (000 §V-A)
//
// In the strict loop a batch is sampled only after the previous batch's
// priorities are updated. PreSampler keeps up to D batches sampled ahead,
// so that sampling overlaps training and transfers between devices can be
// hidden; each batch records its staleness, the number of priority updates
// applied between its sampling and its own update (at most D-1). Each
// batch from Next is updated once; a second update is an error.
//
// # Banks (001 §5.2.2.1)
//
// Banked splits the buffer into L banks, filled in turn; learner l samples
// and updates bank l only, so L learners never contend for one tree. The
// importance weights are corrected for the banked sampling distribution
// p_i^alpha / (L S_l) exactly (see Banked.Sample).
//
// # Cost
//
// Add, Sample and Update of B transitions cost O(B K log_K N) tree work,
// the copies of the rows, and about one cache miss per column of each row
// touched once the buffer outgrows the caches. None of them allocates once
// its Batch has reached its size. Memory: Config.Bytes.
package replay
