# Reference abilities for the 32 response patterns of LSAT (R's ltm::LSAT)
# under ltm's published 2PL estimates (Rizopoulos 2006, JSS 17(5)), written
# to abilities.csv for internal/irt's TestAbilitiesAgreeWithR:
#   - EAP: the posterior mean and standard deviation under a standard
#     normal prior, by R's adaptive quadrature (integrate, QUADPACK);
#   - WLE: the root of Warm's (1989) weighted likelihood equation, by
#     uniroot, with 1/sqrt(I(theta)) as its standard error.
# Base R only, independent of the Go code. Run: Rscript abilities.R
# (Debian: apt-get install r-base-core).
b <- c(-3.3597341, -1.3696497, -0.2798983, -1.8659189, -3.1235725)
a <- c(0.8253715, 0.7229499, 0.8904748, 0.6885502, 0.6574516)
prob <- function(th) 1 / (1 + exp(-a * (th - b)))
lik <- function(th, x) prod(ifelse(x == 1, prob(th), 1 - prob(th)))
out <- NULL
for (p in 0:31) {
  x <- as.integer(intToBits(p))[5:1]
  dens <- function(t) sapply(t, function(th) lik(th, x)) * dnorm(t)
  moment <- function(k) integrate(function(t) t^k * dens(t), -12, 12, rel.tol = 1e-12)$value
  m0 <- moment(0)
  eap <- moment(1) / m0
  eap.se <- sqrt(moment(2) / m0 - eap^2)
  warm <- function(th) {
    p <- prob(th)
    info <- sum(a^2 * p * (1 - p))
    sum(a * (x - p)) + sum(a^3 * p * (1 - p) * (1 - 2 * p)) / (2 * info)
  }
  wle <- uniroot(warm, c(-10, 10), tol = 1e-12)$root
  wle.se <- 1 / sqrt(sum(a^2 * prob(wle) * (1 - prob(wle))))
  out <- rbind(out, data.frame(pattern = paste(x, collapse = ""), eap = eap, eap_se = eap.se, wle = wle, wle_se = wle.se))
}
write.csv(out, "abilities.csv", row.names = FALSE, quote = FALSE)
