// Package nn provides the small float32 neural networks that rlx trains for
// real: multilayer perceptrons and the Nature-DQN convolutional network,
// the categorical and diagonal-Gaussian policy heads of PPO, the losses of
// DQN and TD3, Adam, global-norm gradient clipping, and the copying and
// averaging of weights that target networks, actors and multi-learner SGD
// need. Its semantics follow the PyTorch code of the reference
// implementations (CleanRL's ppo.py, ppo_continuous_action.py, dqn.py,
// td3_continuous_action.py), so that hyperparameters carry over.
//
// # Networks
//
// A Net is a sequence of layers built with NewNet from Dense, Conv and
// Scale specs (NewMLP and NewNatureCNN build the common ones). Each dense or
// conv layer is followed by an activation (Identity, Tanh, ReLU). Batches are
// row-major: sample i occupies x[i*In : (i+1)*In]; images are in C, H, W
// order and a dense layer after a convolution flattens them as PyTorch's
// nn.Flatten does. A dense layer is one GEMM per batch, Y = X W + b; a
// convolution is one GEMM per sample on the im2col matrix (003 §2.3), with
// PyTorch's (Cout, Cin, k, k) weight layout. Shape reports every layer's
// dims, GEMM shape, MACs and parameters, which hardware models use to cost
// the network (the Nature CNN is 9.35 M MACs per frame; seed 000 Table III
// lists 18.8 M, which matches twice that, the flops).
//
// Parameters live in one flat slice per Net (layer by layer, weights then
// bias; a dense weight is stored in×out, the transpose of PyTorch's) and
// gradients in another of the same layout: Params and Grads return them, so
// an optimizer, ClipGradNorm, Polyak and Average work on any Module.
// Backward accumulates into Grads, as PyTorch's backward does: ZeroGrad,
// Forward, Backward, optimizer step. InputGrad gives the gradient with
// respect to the input without touching Grads (the actor update of DDPG and
// TD3 through the critic).
//
// # Initialization
//
// InitOrthogonal is CleanRL's layer_init: torch.nn.init.orthogonal_ with a
// gain per layer (sqrt(2) hidden, 0.01 policy head, 1 value head) and zero
// biases. InitPyTorch is PyTorch's default for nn.Linear and nn.Conv2d
// (uniform within 1/sqrt(fan-in)), which CleanRL's DQN and TD3 keep.
//
// # Cost and allocation
//
// Forward costs Shape().MACs multiply-adds per sample, Backward
// Shape().BackwardMACs; both run on the kernels of core/nn/kernel, on every
// core for large batches, each pass deciding on its own size: a dense
// layer's products split in kernel.Gemm from kernel.ParallelMinFlops
// (2*m*n*k of the one product); a convolution splits its samples (and,
// for the weight gradient, its filter taps) across goroutines when the
// products of the whole batch reach kernel.ParallelMinFlops, although each
// sample's product is smaller; and the activations, their derivatives and
// the input scaling split from 64Ki elements, however few flops that is.
// The results do not depend on the split, or on GOMAXPROCS, by a single
// bit. A Net sizes its activation buffers for the largest batch it has
// seen (Reserve sizes them ahead), and a convolution's im2col buffers for
// the cores it has run on; after that, and once the worker pool is warm
// (the first call that splits its work starts the workers), Forward,
// Backward, the heads, the losses, Adam.Step and ClipGradNorm allocate
// nothing. A Net is not safe for concurrent use: give each goroutine its
// own (Clone).
//
// # Checks
//
// Every layer kind and activation is checked against an independent float64
// implementation (a direct convolution, math.Tanh) and its gradients against
// central differences of it in float64; so are the heads and the losses.
package nn
