! persist_f: persistent point-to-point requests from Fortran (MPI-3's persistent family end to end).
!
! Each rank makes its exchange with its two ring neighbours once, with MPI_RECV_INIT and
! MPI_SEND_INIT, and starts it every iteration: the four requests of the halo with MPI_STARTALL
! and MPI_WAITALL, then a block to the right started with MPI_START twice and completed by
! MPI_WAIT. An MPI_ALLREDUCE ends each iteration; after the loop MPI_REQUEST_FREE releases every
! persistent request. Then, a few times, every rank passes a block to its right neighbour and
! takes the one from its left with matched probes from MPI_ANY_SOURCE: MPI_MPROBE and MPI_MRECV,
! then MPI_IMPROBE polled until it finds the message, MPI_IMRECV and MPI_WAIT. Open MPI's Fortran
! bindings call PMPI directly, so the recorder's Fortran entry points are what records these
! calls.
!
! Usage: persist_f [iterations=20]
program persist_f
  use mpi
  implicit none
  integer, parameter :: n = 128
  integer :: ierr, rank, nprocs, right, left, it, iters, nargs, i
  integer :: halo(4), blockrecv, blocksend, message, request
  logical :: found
  integer :: status(MPI_STATUS_SIZE)
  double precision :: toright(n), toleft(n), fromleft(n), fromright(n), local, total, s
  integer :: block(2 * n), blockin(2 * n)
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  iters = 20
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  fromleft = 0d0
  fromright = 0d0
  blockin = 0

  call MPI_RECV_INIT(fromleft, n, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, halo(1), ierr)
  call MPI_RECV_INIT(fromright, n, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, halo(2), ierr)
  call MPI_SEND_INIT(toright, n, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, halo(3), ierr)
  call MPI_SEND_INIT(toleft, n, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, halo(4), ierr)
  call MPI_RECV_INIT(blockin, 2 * n, MPI_INTEGER, left, 3, MPI_COMM_WORLD, blockrecv, ierr)
  call MPI_SEND_INIT(block, 2 * n, MPI_INTEGER, right, 3, MPI_COMM_WORLD, blocksend, ierr)

  total = 0d0
  do it = 1, iters
    toright = dble(rank + it)
    toleft = dble(rank - it)
    call MPI_STARTALL(4, halo, ierr)
    call MPI_WAITALL(4, halo, MPI_STATUSES_IGNORE, ierr)
    do i = 1, 2 * n
      block(i) = rank + it + i
    end do
    call MPI_START(blockrecv, ierr)
    call MPI_START(blocksend, ierr)
    call MPI_WAIT(blocksend, status, ierr)
    call MPI_WAIT(blockrecv, status, ierr)
    local = fromleft(1) + fromright(n) + dble(blockin(1))
    call MPI_ALLREDUCE(local, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    total = total + s
  end do
  do i = 1, 4
    call MPI_REQUEST_FREE(halo(i), ierr)
  end do
  call MPI_REQUEST_FREE(blockrecv, ierr)
  call MPI_REQUEST_FREE(blocksend, ierr)

  do it = 1, 3
    call MPI_SEND(toright, n, MPI_DOUBLE_PRECISION, right, 9, MPI_COMM_WORLD, ierr)
    call MPI_MPROBE(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, message, status, ierr)
    call MPI_MRECV(fromleft, n, MPI_DOUBLE_PRECISION, message, status, ierr)
    call MPI_SEND(block, 2 * n, MPI_INTEGER, right, 10, MPI_COMM_WORLD, ierr)
    found = .false.
    do while (.not. found)
      call MPI_IMPROBE(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, found, message, status, ierr)
    end do
    call MPI_IMRECV(blockin, 2 * n, MPI_INTEGER, message, request, ierr)
    call MPI_WAIT(request, status, ierr)
    total = total + fromleft(1) + dble(blockin(1))
  end do

  if (rank == 0) print '(a,i0,a,i0,a,es12.5)', 'persist_f: ', nprocs, ' ranks, ', iters, ' iterations, total ', total
  call MPI_FINALIZE(ierr)
end program persist_f
